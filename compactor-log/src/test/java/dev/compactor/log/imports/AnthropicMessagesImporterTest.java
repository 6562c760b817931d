package dev.compactor.log.imports;

import static dev.compactor.log.imports.Fixtures.json;
import static dev.compactor.log.imports.Fixtures.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.view.ViewValidator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnthropicMessagesImporterTest {
  @TempDir Path dir;

  @Test
  void requestBody_mapsSystemThinkingToolUseAndToolResults() throws IOException {
    Object body =
        obj(
            "model",
            "claude-sonnet-4-6",
            "max_tokens",
            1024,
            "system",
            List.of(
                obj(
                    "type",
                    "text",
                    "text",
                    "Be careful.",
                    "cache_control",
                    obj("type", "ephemeral"))),
            "messages",
            List.of(
                obj("role", "user", "content", "read both files"),
                obj(
                    "role",
                    "assistant",
                    "content",
                    List.of(
                        obj("type", "thinking", "thinking", "two reads", "signature", "EqQB"),
                        obj("type", "redacted_thinking", "data", "opaque"),
                        obj("type", "text", "text", "Reading."),
                        obj(
                            "type",
                            "tool_use",
                            "id",
                            "toolu_a",
                            "name",
                            "read",
                            "input",
                            obj("path", "a")),
                        obj(
                            "type",
                            "tool_use",
                            "id",
                            "toolu_b",
                            "name",
                            "read",
                            "input",
                            obj("path", "b")))),
                obj(
                    "role",
                    "user",
                    "content",
                    List.of(
                        obj("type", "text", "text", "here you go"),
                        obj("type", "tool_result", "tool_use_id", "toolu_a", "content", "A"),
                        obj(
                            "type",
                            "tool_result",
                            "tool_use_id",
                            "toolu_b",
                            "is_error",
                            true,
                            "content",
                            List.of(
                                obj("type", "text", "text", "no such file"),
                                obj(
                                    "type",
                                    "image",
                                    "source",
                                    obj("type", "base64", "data", "iVBOR")))))),
                obj(
                    "role",
                    "assistant",
                    "content",
                    List.of(obj("type", "text", "text", "A only.")),
                    "model",
                    "claude-sonnet-4-6",
                    "usage",
                    obj("input_tokens", 5, "output_tokens", 3, "cache_read_input_tokens", 90))));

    ImportResult r = Importers.read(Fixtures.write(dir, "request.json", json(body)));

    assertThat(r.format()).isEqualTo("anthropic-messages");
    ImportedConversation c = r.single();
    List<Message> m = c.messages();
    assertThat(new ViewValidator(ViewValidator.Target.ANTHROPIC).validate(m)).isEmpty();
    assertThat(m)
        .extracting(Message::role)
        .containsExactly(
            Role.SYSTEM,
            Role.USER,
            Role.ASSISTANT,
            Role.TOOL,
            Role.TOOL,
            Role.USER,
            Role.ASSISTANT);
    assertThat(m.get(0).content()).isEqualTo("Be careful.");
    assertThat(m.get(0).metadata().extra()).containsKey("system");
    Message a = m.get(2);
    assertThat(a.content()).isEqualTo("Reading.");
    assertThat(a.reasoning())
        .containsExactly(
            new ReasoningBlock("thinking", "two reads", "EqQB"),
            new ReasoningBlock("redacted_thinking", "opaque", null));
    assertThat(a.toolCalls())
        .containsExactly(
            new ToolCall("toolu_a", "read", "{\"path\":\"a\"}"),
            new ToolCall("toolu_b", "read", "{\"path\":\"b\"}"));
    assertThat(m.get(3).content()).isEqualTo("A");
    assertThat(m.get(4).content()).isEqualTo("no such file");
    assertThat(m.get(4).metadata().extra()).containsEntry("is_error", true).containsKey("content");
    assertThat(m.get(5).content()).isEqualTo("here you go");
    Message last = m.get(6);
    assertThat(last.metadata().usage()).isEqualTo(new Usage(5, 3, 90, 0, 0));
    assertThat(last.metadata().provider()).isEqualTo("anthropic");
    assertThat(last.metadata().input()).isNotNull();
    assertThat(c.metadata())
        .containsEntry("model", "claude-sonnet-4-6")
        .containsEntry("max_tokens", 1024);
  }

  @Test
  void bareMessageArrayWithBlocks_isDetectedAsAnthropic() throws IOException {
    Object array =
        List.of(
            obj("role", "user", "content", "hi"),
            obj(
                "role",
                "assistant",
                "content",
                List.of(obj("type", "tool_use", "id", "t1", "name", "x", "input", obj()))),
            obj(
                "role",
                "user",
                "content",
                List.of(obj("type", "tool_result", "tool_use_id", "t1", "content", "done"))));

    ImportResult r = Importers.read(Fixtures.write(dir, "messages.json", json(array)));

    assertThat(r.format()).isEqualTo("anthropic-messages");
    assertThat(r.single().messages())
        .extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL);
    assertThat(r.single().messages().get(1).toolCalls().get(0).arguments()).isEqualTo("{}");
  }
}
