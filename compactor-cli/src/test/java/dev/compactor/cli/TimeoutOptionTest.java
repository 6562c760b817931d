package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --timeout} bounds a model call, retries included. */
class TimeoutOptionTest {
  @TempDir Path dir;

  @Test
  void compactSummarize_againstAStalledServer_endsAtTheTimeout() throws Exception {
    List<Socket> held = new ArrayList<>();
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    held.add(server.accept()); // read nothing, answer nothing
                  }
                } catch (IOException closed) {
                  // test over
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      StringBuilder chat = new StringBuilder("[");
      for (int i = 0; i < 40; i++) {
        chat.append(i == 0 ? "" : ",")
            .append("{\"role\":\"user\",\"content\":\"question ")
            .append(i)
            .append(" ")
            .append("word ".repeat(200))
            .append("\"},{\"role\":\"assistant\",\"content\":\"answer ")
            .append(i)
            .append(" ")
            .append("text ".repeat(200))
            .append("\"}");
      }
      Path f = Files.writeString(dir.resolve("long.json"), chat.append("]").toString());
      String url = "http://127.0.0.1:" + server.getLocalPort() + "/v1";
      CliRunner r =
          assertTimeoutPreemptively(
              Duration.ofSeconds(30),
              () ->
                  CliRunner.compact(
                      f,
                      dir.resolve("long.compactor"),
                      "summarize",
                      "--model",
                      "openai/gpt-4o",
                      "--base-url",
                      url,
                      "--context-budget",
                      "4000",
                      "--timeout",
                      "1s"));
      assertThat(r.out() + r.err()).contains("timed out");
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  @Test
  void aBadTimeout_isRefusedNamingIt() throws Exception {
    Path f = Files.writeString(dir.resolve("a.json"), "[{\"role\":\"user\",\"content\":\"hi\"}]");
    CliRunner r =
        CliRunner.compact(
            f,
            dir.resolve("a.compactor"),
            "summarize",
            "--model",
            "openai/gpt-4o",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--timeout",
            "soon");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("timeout \"soon\" from --timeout");
  }
}
