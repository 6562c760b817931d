package dev.compactor.log.imports;

import static dev.compactor.log.imports.Fixtures.jsonl;
import static dev.compactor.log.imports.Fixtures.obj;
import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.view.ViewValidator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GptmeImporterTest {
  @TempDir Path dir;

  private static final String TS = "2026-01-01T10:00:00+00:00";

  private ImportedConversation read(List<?> lines) throws IOException {
    Path p = Fixtures.writeGzip(dir, "conversation.jsonl.gz", jsonl(lines));
    ImportResult r = Importers.read(p);
    assertThat(r.format()).isEqualTo("gptme");
    ImportedConversation c = r.single();
    assertThat(new ViewValidator().validate(c.messages())).isEmpty();
    return c;
  }

  private static Map<String, Object> msg(String role, String content) {
    return obj("role", role, "content", content, "timestamp", TS);
  }

  @Test
  void toolOutputAfterAShellBlock_becomesAToolResultPairedWithADerivedCall() throws IOException {
    String assistant = "Let me look.\n```shell\nls -la\n```";
    ImportedConversation c =
        read(
            List.of(
                msg("system", "You are gptme."),
                msg("user", "list files"),
                msg("assistant", assistant),
                msg("system", "Ran command: `ls -la`\ntotal 0"),
                msg("assistant", "Empty.")));

    List<Message> m = c.messages();
    assertThat(m)
        .extracting(Message::role)
        .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
    assertThat(m.get(2).content()).isEqualTo(assistant);
    assertThat(m.get(2).toolCalls())
        .containsExactly(new ToolCall("gptme-3-0", "shell", "{\"content\":\"ls -la\"}"));
    assertThat(m.get(3).toolCallId()).isEqualTo("gptme-3-0");
    assertThat(m.get(3).content()).isEqualTo("Ran command: `ls -la`\ntotal 0");
    assertThat(m.get(0).role()).isEqualTo(Role.SYSTEM);
    assertThat(m.get(1).timestamp()).isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
    assertThat(c.name()).isEqualTo(dir.getFileName().toString());
    assertThat(c.notes()).anySatisfy(n -> assertThat(n).contains("1 tool output"));
  }

  @Test
  void aCodeBlockWithoutAResult_getsNoCall_andASystemMessageWithoutAToolUseStaysSystem()
      throws IOException {
    ImportedConversation c =
        read(
            List.of(
                msg("user", "how do I list files?"),
                msg("assistant", "Use:\n```shell\nls\n```"),
                msg("user", "thanks"),
                msg("assistant", "You're welcome."),
                msg("system", "Interrupted by user")));

    assertThat(c.messages()).allSatisfy(m -> assertThat(m.toolCalls()).isEmpty());
    assertThat(c.messages().get(4).role()).isEqualTo(Role.SYSTEM);
  }

  @Test
  void severalToolUses_arePairedInOrder_andPairingStopsWhereResultsRunOut() throws IOException {
    String assistant =
        "```save hello.py\nprint('hi')\n```\nthen\n```ipython\nprint(1)\n```\n```shell\nrm x\n```";
    ImportedConversation c =
        read(
            List.of(
                msg("user", "go"),
                msg("assistant", assistant),
                msg("system", "Saved to hello.py"),
                msg("system", "Executed code block.\n1"),
                msg("user", "stop")));

    Message a = c.messages().get(1);
    assertThat(a.toolCalls())
        .extracting(ToolCall::name, ToolCall::arguments)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "save", "{\"args\":[\"hello.py\"],\"content\":\"print('hi')\"}"),
            org.assertj.core.groups.Tuple.tuple("ipython", "{\"content\":\"print(1)\"}"));
    assertThat(c.messages().subList(2, 4))
        .extracting(Message::toolCallId)
        .containsExactly("gptme-2-0", "gptme-2-1");
  }

  @Test
  void callIdOfASystemMessage_isTheCallId_andTheToolFormatGivesNameAndJson() throws IOException {
    String assistant = "Running it.\n@shell(call_abc): {\"command\": \"pwd\"}";
    ImportedConversation c =
        read(
            List.of(
                msg("user", "where am I?"),
                msg("assistant", assistant),
                obj(
                    "role",
                    "system",
                    "content",
                    "/home/u",
                    "timestamp",
                    TS,
                    "call_id",
                    "call_abc")));

    assertThat(c.messages().get(1).toolCalls())
        .containsExactly(new ToolCall("call_abc", "shell", "{\"command\": \"pwd\"}"));
    assertThat(c.messages().get(2).toolCallId()).isEqualTo("call_abc");
    assertThat(c.messages().get(2).metadata().extra()).doesNotContainKey("call_id");
  }

  @Test
  void thinkBlocks_stayVerbatimInTheContent() throws IOException {
    String content = "<think>\nshould I?\n</think>\nYes.";
    ImportedConversation c = read(List.of(msg("user", "q"), msg("assistant", content)));

    assertThat(c.messages().get(1).content()).isEqualTo(content);
    assertThat(c.messages().get(1).reasoning()).isEmpty();
  }

  @Test
  void gptmeFields_areTypedOrKept_andUsageGetsItsInputFingerprint() throws IOException {
    ImportedConversation c =
        read(
            List.of(
                obj("role", "system", "content", "sys", "timestamp", TS, "pinned", true),
                obj(
                    "role",
                    "user",
                    "content",
                    "look at this",
                    "timestamp",
                    TS,
                    "files",
                    List.of("a.png"),
                    "hide",
                    true,
                    "quiet",
                    true),
                obj(
                    "role",
                    "assistant",
                    "content",
                    "ok",
                    "timestamp",
                    TS,
                    "metadata",
                    obj(
                        "model",
                        "anthropic/claude-sonnet-4-6",
                        "cost",
                        0.01,
                        "usage",
                        obj(
                            "input_tokens", 10,
                            "output_tokens", 5,
                            "cache_read_tokens", 100,
                            "cache_creation_tokens", 20))),
                obj("role", "system", "content", "status", "timestamp", TS, "ui_only", true)));

    List<Message> m = c.messages();
    assertThat(m.get(0).pinned()).isTrue();
    assertThat(m.get(1).hidden()).isTrue();
    assertThat(m.get(1).metadata().extra())
        .containsEntry("files", List.of("a.png"))
        .containsEntry("quiet", true);
    Message a = m.get(2);
    assertThat(a.metadata().model()).isEqualTo("anthropic/claude-sonnet-4-6");
    assertThat(a.metadata().provider()).isEqualTo("anthropic");
    assertThat(a.metadata().usage()).isEqualTo(new Usage(10, 5, 100, 20, 0));
    assertThat(a.metadata().extra()).containsEntry("metadata", Map.of("cost", 0.01));
    assertThat(a.metadata().input())
        .isEqualTo(
            new InputFingerprint(
                2, Digests.prefix(m.subList(0, 2)), "anthropic/claude-sonnet-4-6"));
    assertThat(m.get(3).uiOnly()).isTrue();
  }

  @Test
  void flatTokenMetadata_ofOlderGptme_isReadAsUsage() throws IOException {
    ImportedConversation c =
        read(
            List.of(
                msg("user", "q"),
                obj(
                    "role",
                    "assistant",
                    "content",
                    "a",
                    "timestamp",
                    TS,
                    "metadata",
                    obj("model", "gpt-4o", "input_tokens", 7, "output_tokens", 3))));

    assertThat(c.messages().get(1).metadata().usage()).isEqualTo(new Usage(7, 3, 0, 0, 0));
    assertThat(c.messages().get(1).metadata().extra()).doesNotContainKey("metadata");
  }

  @Test
  void malformedLines_areSkippedWithANote_andNaiveTimestampsAreUtc() throws IOException {
    String first =
        Fixtures.json(obj("role", "user", "content", "hi", "timestamp", "2026-01-01T10:00:00"));
    String text =
        first
            + "\n{not json\n"
            + Fixtures.json(obj("role", "assistant", "content", "hello"))
            + "\n";
    Path p = Files.writeString(dir.resolve("log.jsonl"), text);

    ImportedConversation c = Importers.read(p).single();

    assertThat(c.messages()).hasSize(2);
    assertThat(c.messages().get(0).timestamp()).isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
    assertThat(c.name()).isEqualTo("log");
    assertThat(c.problems())
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .contains("malformed")
        .contains("line 2 (byte " + (first.getBytes(StandardCharsets.UTF_8).length + 1) + ")");
  }

  @Test
  void nestedFences_insideASaveBlock_belongToTheBody() {
    String content = "```save README.md\n# T\n```sh\nmake\n```\nend\n```\ntrailing";

    List<GptmeToolUses.Use> uses = GptmeToolUses.find(content);

    assertThat(uses).hasSize(1);
    assertThat(uses.get(0).arguments())
        .isEqualTo("{\"args\":[\"README.md\"],\"content\":\"# T\\n```sh\\nmake\\n```\\nend\"}");
  }

  @Test
  void xmlToolFormat_isRecognised() {
    List<GptmeToolUses.Use> uses =
        GptmeToolUses.find("ok\n<tool-use>\n<shell>\nls\n</shell>\n</tool-use>");

    assertThat(uses).extracting(GptmeToolUses.Use::name).containsExactly("shell");
    assertThat(uses.get(0).arguments()).isEqualTo("{\"content\":\"ls\\n\"}");
  }
}
