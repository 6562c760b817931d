package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class InspectWebTest {
  @TempDir Path tmp;

  @Test
  void web_printsTheAddressFirst_andServesTheConversationUntilInterrupted() throws Exception {
    Path source = CliRunner.sample(tmp.resolve("session.jsonl"), 12, 7);
    Path dir = tmp.resolve("session.compactor");
    CliRunner c = CliRunner.compact(source, dir, "trim", "--context-budget", "20000");
    assertThat(dir.resolve("views.json")).as(c.err()).exists();

    StringWriter out = new StringWriter();
    CommandLine cl = Main.newCommandLine();
    PipedLines lines = new PipedLines(out);
    cl.setOut(lines.writer);
    AtomicInteger exit = new AtomicInteger(-1);
    Thread t =
        new Thread(() -> exit.set(cl.execute("inspect", dir.toString(), "--web", "--port", "0")));
    t.start();
    String first = lines.firstLine();
    assertThat(first).startsWith("http://127.0.0.1:").contains("/inspect/conversations/");

    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> page =
        http.send(
            HttpRequest.newBuilder(URI.create(first)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/html"));
    assertThat(page.body()).contains("session.compactor").contains("id=\"context-chart\"");

    t.interrupt();
    t.join(10_000);
    assertThat(t.isAlive()).isFalse();
    assertThat(exit.get()).isZero();
  }

  /** Captures what the command prints and waits for its first line. */
  static final class PipedLines {
    final StringWriter sink;
    final PrintWriter writer;

    PipedLines(StringWriter sink) {
      this.sink = sink;
      this.writer = new PrintWriter(sink, true);
    }

    String firstLine() throws InterruptedException {
      for (int i = 0; i < 600; i++) {
        String s;
        synchronized (sink) {
          s = sink.toString();
        }
        int nl = s.indexOf('\n');
        if (nl >= 0) {
          return s.substring(0, nl).strip();
        }
        Thread.sleep(50);
      }
      throw new AssertionError("no address printed within 30 s");
    }
  }
}
