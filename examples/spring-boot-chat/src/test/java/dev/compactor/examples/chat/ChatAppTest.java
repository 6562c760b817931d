package dev.compactor.examples.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;

/**
 * The example application against the testkit's fake OpenAI server through {@code --base-url}: it
 * calls its tool, answers, and a second run on the same store continues the conversation.
 */
class ChatAppTest {
  static Reply reply(RecordedRequest r) {
    List<JsonNode> items = r.items();
    JsonNode last = items.get(items.size() - 1);
    if ("tool".equals(last.path("role").asText())) {
      return Reply.text("Today is " + last.path("content").asText() + ".");
    }
    return Reply.toolCall("call_" + items.size(), "today", "{}");
  }

  private static String run(String... args) {
    PrintStream stdout = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      int code = SpringApplication.exit(SpringApplication.run(ChatApp.class, args));
      assertEquals(0, code);
    } finally {
      System.setOut(stdout);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void answersWithItsToolAndASecondRunContinues(@TempDir Path dir) {
    try (FakeModelServer fake = FakeModelServer.builder().replyWith(ChatAppTest::reply).start()) {
      String base = "--base-url=" + fake.url();
      String store = "--compactor.store=sqlite:" + dir.resolve("chat.db");
      String out = run(base, "--api-key=sk-test", store, "What day is it?");
      assertTrue(out.startsWith("Today is "), out);
      assertTrue(fake.rejections().isEmpty());
      int before = fake.requests().size();
      assertEquals(2, before, "a tool call, then the answer");

      run(base, "--api-key=sk-test", store, "And tomorrow?");
      String first = fake.requests().get(before).json().toString();
      assertTrue(first.contains("What day is it?"), "the restarted app remembers: " + first);
      assertTrue(first.contains("And tomorrow?"));
      assertTrue(fake.rejections().isEmpty());
    }
  }
}
