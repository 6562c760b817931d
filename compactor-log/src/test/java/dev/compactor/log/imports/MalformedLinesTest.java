package dev.compactor.log.imports;

import static dev.compactor.log.imports.Fixtures.json;
import static dev.compactor.log.imports.Fixtures.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.wire.json.MessageCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A JSON-lines file that is in one format except for some broken lines is read as that format, the
 * broken lines skipped and reported with their line and byte offset; detection never moves on to
 * another format because of them.
 */
class MalformedLinesTest {
  private static final MessageCodec CODEC = new MessageCodec();

  private static int bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void nativeLog_withABrokenMiddleLine_staysNative_andNamesTheLineAndOffset() {
    String l1 = CODEC.writeLine(Message.user("héllo").toBuilder().id("m1").build());
    String l2 = "{\"id\": \"m2\", \"role\": \"assistant\", \"content\": \"cut";
    String l3 = CODEC.writeLine(Message.assistant("bye").toBuilder().id("m3").build());
    String l4 = "{\"id\": \"m4\", \"role\": \"user\", \"content\": 7}";
    String text = l1 + "\n" + l2 + "\n" + l3 + "\n" + l4 + "\n";

    ImportResult r = ImporterRegistry.builtIns().read(Fixtures.source("c.jsonl", text));

    assertThat(r.format())
        .as("not gptme, which also reads role/content lines")
        .isEqualTo("compactor");
    ImportedConversation c = r.single();
    assertThat(c.messages()).extracting(m -> m.id().value()).containsExactly("m1", "m3");
    assertThat(c.problems()).hasSize(1);
    assertThat(c.problems().get(0))
        .startsWith("2 malformed line(s) skipped: ")
        .contains("line 2 (byte " + (bytes(l1) + 1) + ")")
        .contains("line 4 (byte " + (bytes(l1) + bytes(l2) + bytes(l3) + 3) + ")");
  }

  @Test
  void claudeCodeSession_withABrokenSecondLine_isStillClaudeCode() {
    String l1 =
        json(
            obj(
                "type",
                "user",
                "uuid",
                "u1",
                "parentUuid",
                null,
                "sessionId",
                "s",
                "timestamp",
                "2026-01-01T10:00:00Z",
                "message",
                obj("role", "user", "content", "hi")));
    String l2 = "{\"type\": \"assistant\", \"uuid\": \"a1\", \"mess";
    String l3 =
        json(
            obj(
                "type",
                "assistant",
                "uuid",
                "a2",
                "parentUuid",
                "u1",
                "sessionId",
                "s",
                "timestamp",
                "2026-01-01T10:00:01Z",
                "message",
                obj(
                    "id",
                    "msg_1",
                    "role",
                    "assistant",
                    "model",
                    "claude-x",
                    "content",
                    List.of(obj("type", "text", "text", "hello")))));
    String text = l1 + "\r\n" + l2 + "\r\n" + l3 + "\r\n";

    ImportResult r = ImporterRegistry.builtIns().read(Fixtures.source("s.jsonl", text));

    assertThat(r.format()).isEqualTo("claude-code");
    assertThat(r.single().messages()).extracting(Message::content).containsExactly("hi", "hello");
    assertThat(r.problems())
        .singleElement()
        .asString()
        .contains("line 2 (byte " + (bytes(l1) + 2) + ")");
  }

  @Test
  void gptmeLog_withInvalidUtf8_isReadWithAProblemNamingTheOffset() {
    byte[] l1 = json(obj("role", "user", "content", "ok")).getBytes(StandardCharsets.UTF_8);
    byte[] l2 =
        "{\"role\": \"assistant\", \"content\": \"a\u00ff\"}".getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[l1.length + 1 + l2.length + 1];
    System.arraycopy(l1, 0, all, 0, l1.length);
    all[l1.length] = '\n';
    System.arraycopy(l2, 0, all, l1.length + 1, l2.length);
    all[all.length - 1] = '\n';
    int bad = l1.length + 1 + l2.length - 3; // the 0xFF byte, before the closing quote and brace

    ImportResult r = ImporterRegistry.builtIns().read(ImportSource.of("g.jsonl", all));

    assertThat(r.format()).isEqualTo("gptme");
    assertThat(r.single().messages().get(1).content()).isEqualTo("a\uFFFD");
    assertThat(r.problems())
        .singleElement()
        .asString()
        .contains("invalid UTF-8")
        .contains("line 2 (byte " + (l1.length + 1) + "): at byte " + bad);
  }
}
