package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.Reply;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compactor serve} as a user runs it: a separate process on a free port, its startup lines,
 * a call through it, and SIGTERM while a call is in flight: the call still gets its 200, the
 * process prints that it stopped and exits 0.
 */
class ServeProcessTest {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)");

  @Test
  void servesThenStopsGracefullyOnSigterm(@TempDir Path dir) throws Exception {
    try (FakeModelServer fake =
        FakeModelServer.builder()
            .replyWith(r -> Reply.text("slow answer").usage(10, 2).delay(Duration.ofSeconds(3)))
            .start()) {
      ProcessBuilder pb =
          new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp",
              System.getProperty("java.class.path"),
              "dev.compactor.cli.Main",
              "serve",
              "--port",
              "0",
              "--db",
              dir.resolve("chats.db").toString(),
              "--upstream",
              "openai=" + fake.baseUrl());
      pb.environment().put("OPENAI_API_KEY", "sk-test");
      pb.environment().put("HOME", dir.toString());
      pb.environment().remove("XDG_CONFIG_HOME");
      pb.directory(dir.toFile());
      pb.redirectErrorStream(true);
      Process p = pb.start();
      LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
      List<String> all = new ArrayList<>();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String l; (l = r.readLine()) != null; ) {
                    lines.add(l);
                  }
                } catch (Exception e) {
                  lines.add("read failed: " + e);
                }
              });
      reader.setDaemon(true);
      reader.start();
      try {
        String base = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (base == null && System.nanoTime() < deadline) {
          String l = lines.poll(1, TimeUnit.SECONDS);
          if (l != null) {
            all.add(l);
            Matcher m = LISTENING.matcher(l);
            if (m.find()) {
              base = m.group(1);
            }
          }
        }
        assertThat(base).as("startup lines: " + all).isNotNull();
        // the next startup lines name the store and the auth mode
        for (int i = 0; i < 3; i++) {
          all.add(lines.poll(10, TimeUnit.SECONDS));
        }
        assertThat(String.join("\n", all))
            .contains("store " + dir.resolve("chats.db"))
            .contains("auth local mode");
        HttpClient http = HttpClient.newHttpClient();
        assertThat(
                http.send(
                        HttpRequest.newBuilder(URI.create(base + "/healthz")).build(),
                        HttpResponse.BodyHandlers.ofString())
                    .statusCode())
            .isEqualTo(200);
        CompletableFuture<HttpResponse<String>> inFlight =
            http.sendAsync(
                HttpRequest.newBuilder(URI.create(base + "/v1/chats/c/calls"))
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\":"
                                + " \"user\", \"content\": \"hi\"}]}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        while (fake.requests().isEmpty()) {
          Thread.sleep(20); // the call has reached the model: it is in flight
        }
        p.toHandle().destroy(); // SIGTERM, leaving our end of its output open
        HttpResponse<String> answer = inFlight.get(30, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.body()).contains("slow answer");
        assertThat(p.waitFor(40, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        reader.join(5000);
        lines.drainTo(all);
        assertThat(String.join("\n", all))
            .contains(
                "compactor serve: proxy conversations deleted 7 days after their last request")
            .contains("stopping")
            .contains("compactor serve: stopped");
      } finally {
        p.destroyForcibly();
      }
    }
  }
}
