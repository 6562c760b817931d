package dev.compactor.examples.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example's main against the testkit's fake OpenAI server through {@code --base-url}: it calls
 * its tools, answers, and a second run on the same store continues the conversation.
 */
class AgentMainTest {
  static Reply reply(RecordedRequest r) {
    List<JsonNode> items = r.items();
    JsonNode last = items.get(items.size() - 1);
    if ("tool".equals(last.path("role").asText())) {
      return Reply.text("The directory holds notes.txt.");
    }
    return Reply.toolCall("call_" + items.size(), "listFiles", "{}");
  }

  @Test
  void answersWithItsToolsAndASecondRunContinues(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("notes.txt"), "hello");
    String store = "sqlite:" + dir.resolve("agent.db");
    try (FakeModelServer fake = FakeModelServer.builder().replyWith(AgentMainTest::reply).start()) {
      String[] args = {
        "--base-url",
        fake.baseUrl(),
        "--api-key",
        "sk-test",
        "--dir",
        dir.toString(),
        "--store",
        store
      };
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          AgentMain.run(
              args,
              new ByteArrayInputStream(
                  "What files are there?\nAnd now?\n".getBytes(StandardCharsets.UTF_8)),
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
      assertEquals(
          "The directory holds notes.txt.\nThe directory holds notes.txt.\n",
          out.toString(StandardCharsets.UTF_8));
      assertTrue(fake.rejections().isEmpty());
      // the tool ran: its result (the file list) went back to the model
      assertTrue(fake.requests().get(1).json().toString().contains("notes.txt"));
      int before = fake.requests().size();

      int again =
          AgentMain.run(
              concat(args, "One more?"),
              new ByteArrayInputStream(new byte[0]),
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(0, again, err.toString(StandardCharsets.UTF_8));
      String first = fake.requests().get(before).json().toString();
      assertTrue(first.contains("What files are there?"), "the restarted agent remembers");
      assertTrue(first.contains("One more?"));
    }
  }

  @Test
  void aBadOptionIsRefusedNamingIt() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        AgentMain.run(
            new String[] {"--nope", "x"},
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, code);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--nope"));
  }

  private static String[] concat(String[] a, String b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + 1);
    out[a.length] = b;
    return out;
  }
}
