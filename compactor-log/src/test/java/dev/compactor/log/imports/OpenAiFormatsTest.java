package dev.compactor.log.imports;

import static dev.compactor.log.imports.Fixtures.json;
import static dev.compactor.log.imports.Fixtures.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.wire.usage.Usages;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OpenAI chat arrays and the trajectory formats that embed them. */
class OpenAiFormatsTest {
  @TempDir Path dir;

  private ImportResult read(String name, Object document, String format) throws IOException {
    ImportResult r = Importers.read(Fixtures.writeGzip(dir, name, json(document)));
    assertThat(r.format()).isEqualTo(format);
    for (ImportedConversation c : r.conversations()) {
      assertThat(new ViewValidator().validate(c.messages())).isEmpty();
    }
    return r;
  }

  /** An assistant message with {@code content} (null, text or parts) and these tool calls. */
  private static Map<String, Object> assistantCalling(Object content, Object... calls) {
    return obj("role", "assistant", "content", content, "tool_calls", List.of(calls));
  }

  /** The result of the call {@code callId}: text or content parts. */
  private static Map<String, Object> toolResult(String callId, Object content) {
    return obj("role", "tool", "tool_call_id", callId, "content", content);
  }

  private static Map<String, Object> call(String id, String name, String args) {
    return obj("id", id, "type", "function", "function", obj("name", name, "arguments", args));
  }

  @Test
  void messageArray_mapsRolesContentPartsToolCallsAndResults() throws IOException {
    List<Object> chat =
        List.of(
            obj("role", "developer", "content", "rules"),
            obj(
                "role",
                "user",
                "content",
                List.of(
                    obj("type", "text", "text", "what is"),
                    obj("type", "image_url", "image_url", obj("url", "data:...")))),
            assistantCalling(
                null, call("c1", "weather", "{\"city\":\"Oslo\"}"), call("c2", "time", "{}")),
            obj("role", "tool", "tool_call_id", "c1", "name", "weather", "content", "rain"),
            toolResult("c2", List.of(obj("type", "text", "text", "9:00"))),
            obj("role", "assistant", "content", "Rain at nine.", "refusal", null));

    ImportedConversation c = read("chat.json.gz", chat, "openai-chat").single();

    List<Message> m = c.messages();
    assertThat(m)
        .extracting(Message::role)
        .containsExactly(
            Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT);
    assertThat(m.get(0).metadata().extra()).containsEntry("source_role", "developer");
    assertThat(m.get(1).content()).isEqualTo("what is");
    assertThat(m.get(1).metadata().extra()).containsKey("content");
    assertThat(m.get(2).content()).isEmpty();
    assertThat(m.get(2).toolCalls())
        .containsExactly(
            new ToolCall("c1", "weather", "{\"city\":\"Oslo\"}"), new ToolCall("c2", "time", "{}"));
    assertThat(m.get(3).toolCallId()).isEqualTo("c1");
    assertThat(m.get(3).metadata().extra()).containsEntry("name", "weather");
    assertThat(m.get(4).content()).isEqualTo("9:00");
    assertThat(m.get(5).metadata().extra()).containsEntry("refusal", null);
    assertThat(m)
        .extracting(x -> x.id().value())
        .containsExactly("msg-0", "msg-1", "msg-2", "msg-3", "msg-4", "msg-5");
  }

  @Test
  void requestBody_keepsItsOtherFieldsAsConversationMetadata() throws IOException {
    Object body =
        obj(
            "model", "gpt-4o",
            "tools", List.of(obj("type", "function")),
            "messages", List.of(obj("role", "user", "content", "hi")));

    ImportedConversation c = read("request.json", body, "openai-chat").single();

    assertThat(c.messages()).hasSize(1);
    assertThat(c.metadata()).containsEntry("model", "gpt-4o").containsKey("tools");
  }

  @Test
  void brokenToolPairing_isRepairedWithNotes() throws IOException {
    List<Object> chat =
        List.of(
            obj("role", "user", "content", "go"),
            assistantCalling("", call("c1", "a", "{}"), call("c2", "b", "{}")),
            toolResult("c1", "one"),
            obj("role", "user", "content", "never mind"),
            toolResult("c2", "late"),
            assistantCalling("ok", call("c9", "z", "{}")));

    ImportedConversation c = read("broken.json", chat, "openai-chat").single();

    List<Message> m = c.messages();
    assertThat(m.get(1).toolCalls()).extracting(ToolCall::id).containsExactly("c1");
    assertThat(m.get(1).metadata().extra()).containsKey("unanswered_tool_calls");
    assertThat(m.get(4).role()).isEqualTo(Role.USER);
    assertThat(m.get(4).content()).isEqualTo("late");
    assertThat(m.get(4).metadata().extra()).containsEntry("orphan_tool_call_id", "c2");
    assertThat(m.get(5).toolCalls()).as("the last turn's call is pending, not missing").hasSize(1);
    assertThat(c.problems())
        .as("each repair is reported, naming the message and the call")
        .containsExactly(
            "1 tool result(s) without a matching call directly before them, imported as user"
                + " messages (metadata.extra.orphan_tool_call_id): message 4 (msg-4) answers c2",
            "1 tool call(s) without a result while the conversation goes on, moved to"
                + " metadata.extra.unanswered_tool_calls: message 1 (msg-1): c2 (b)");
  }

  @Test
  void tauBench_namesEachRunByTaskAndTrial_withItsFieldsAsMetadata() throws IOException {
    List<Object> runs =
        List.of(
            obj(
                "task_id",
                12,
                "reward",
                1.0,
                "info",
                obj("task", obj("user_id", "u1")),
                "traj",
                List.of(
                    obj("role", "system", "content", "policy"),
                    obj("role", "user", "content", "hi")),
                "trial",
                0),
            obj(
                "task_id",
                12,
                "reward",
                0.0,
                "info",
                obj(),
                "traj",
                List.of(obj("role", "user", "content", "hey")),
                "trial",
                1));

    ImportResult r = read("gpt-4o-airline.json.gz", runs, "tau-bench");

    assertThat(r.conversations())
        .extracting(ImportedConversation::name)
        .containsExactly("task-12/trial-0", "task-12/trial-1");
    assertThat(r.conversations().get(0).metadata())
        .containsEntry("task_id", 12)
        .containsEntry("reward", 1.0)
        .containsEntry("trial", 0)
        .containsKey("info")
        .doesNotContainKey("traj");
    assertThat(r.messageCount()).isEqualTo(3);
  }

  @Test
  void miniSweAgent_takesUsageModelTimestampAndReasoningFromItsExtraFields() throws IOException {
    Object traj =
        obj(
            "info",
            obj("model_stats", obj("instance_cost", 0.1, "api_calls", 1)),
            "messages",
            List.of(
                obj("role", "system", "content", "you are an agent"),
                obj("role", "user", "content", "fix the bug"),
                obj(
                    "role",
                    "assistant",
                    "content",
                    "",
                    "reasoning_content",
                    "look first",
                    "tool_calls",
                    List.of(
                        obj(
                            "index",
                            0,
                            "function",
                            obj("arguments", "{\"command\": \"ls\"}", "name", "bash"),
                            "id",
                            "call_0",
                            "type",
                            "function")),
                    "extra",
                    obj(
                        "timestamp",
                        1775784986.5,
                        "response",
                        obj(
                            "model",
                            "deepseek-reasoner",
                            "usage",
                            obj(
                                "prompt_tokens",
                                2036,
                                "completion_tokens",
                                77,
                                "prompt_tokens_details",
                                obj("cached_tokens", 320),
                                "completion_tokens_details",
                                obj("reasoning_tokens", 30))))),
                obj(
                    "role",
                    "tool",
                    "tool_call_id",
                    "call_0",
                    "content",
                    "<returncode>0</returncode>",
                    "extra",
                    obj("timestamp", 1775784987.0)),
                obj(
                    "role",
                    "exit",
                    "content",
                    "diff --git a b",
                    "extra",
                    obj("exit_status", "Submitted"))),
            "trajectory_format",
            "mini-swe-agent-1.1",
            "instance_id",
            "repo__repo-1");

    ImportedConversation c = read("x.traj.json.gz", traj, "mini-swe-agent").single();

    assertThat(c.name()).isEqualTo("repo__repo-1");
    assertThat(c.metadata()).containsKeys("info", "trajectory_format", "instance_id");
    List<Message> m = c.messages();
    Message a = m.get(2);
    assertThat(a.reasoning())
        .containsExactly(new ReasoningBlock("reasoning_content", "look first", null));
    assertThat(a.metadata().model()).isEqualTo("deepseek-reasoner");
    assertThat(a.metadata().usage()).isEqualTo(new Usage(1716, 77, 320, 0, 30));
    assertThat(a.metadata().input())
        .isEqualTo(new InputFingerprint(2, Digests.prefix(m.subList(0, 2)), "deepseek-reasoner"));
    assertThat(a.timestamp()).isEqualTo(Instant.ofEpochSecond(1775784986L, 500_000_000L));
    Message exit = m.get(4);
    assertThat(exit.role()).isEqualTo(Role.SYSTEM);
    assertThat(exit.uiOnly()).isTrue();
    assertThat(exit.metadata().extra()).containsEntry("source_role", "exit");
  }

  @Test
  void sweAgent_readsHistory_withToolCallIdListsAndItsExtraFields() throws IOException {
    Object traj =
        obj(
            "environment", "swe_main",
            "trajectory", List.of(obj("action", "ls", "observation", "a.py")),
            "history",
                List.of(
                    obj("role", "system", "content", "SETTING", "agent", "main"),
                    obj("role", "user", "content", "demo", "agent", "main", "is_demo", true),
                    obj(
                        "role",
                        "assistant",
                        "content",
                        "I'll list.",
                        "thought",
                        "I'll list.",
                        "action",
                        "ls",
                        "agent",
                        "main",
                        "tool_calls",
                        List.of(call("call_1", "bash", "{\"command\":\"ls\"}"))),
                    obj(
                        "role",
                        "tool",
                        "content",
                        "a.py",
                        "agent",
                        "main",
                        "tool_call_ids",
                        List.of("call_1"))),
            "info", obj("exit_status", "submitted"));

    ImportedConversation c = read("demo.traj", traj, "swe-agent").single();

    assertThat(c.name()).isEqualTo("demo");
    List<Message> m = c.messages();
    assertThat(m.get(1).metadata().extra())
        .containsEntry("is_demo", true)
        .containsEntry("agent", "main");
    assertThat(m.get(2).metadata().extra())
        .containsEntry("thought", "I'll list.")
        .containsEntry("action", "ls");
    assertThat(m.get(3).toolCallId()).isEqualTo("call_1");
    assertThat(m.get(3).metadata().extra()).doesNotContainKey("tool_call_ids");
    assertThat(c.metadata())
        .containsKeys("environment", "info")
        .doesNotContainKeys("history", "trajectory");
    assertThat(c.notes()).anySatisfy(n -> assertThat(n).contains("1 \"trajectory\" steps"));
  }

  @Test
  void legacyFunctionCalls_arePairedByADerivedId() throws IOException {
    List<Object> chat =
        List.of(
            obj("role", "user", "content", "time?"),
            obj(
                "role",
                "assistant",
                "content",
                null,
                "function_call",
                obj("name", "now", "arguments", "{}")),
            obj("role", "function", "name", "now", "content", "9:00"));

    List<Message> m = read("legacy.json", chat, "openai-chat").single().messages();

    assertThat(m.get(1).toolCalls()).containsExactly(new ToolCall("function-call-1", "now", "{}"));
    assertThat(m.get(2).role()).isEqualTo(Role.TOOL);
    assertThat(m.get(2).toolCallId()).isEqualTo("function-call-1");
  }

  @Test
  void usageShapes_ofEachProvider_areRead() {
    assertThat(
            Usages.parse(
                Fixtures.tree(
                    obj(
                        "prompt_tokens",
                        100,
                        "completion_tokens",
                        5,
                        "prompt_cache_hit_tokens",
                        60))))
        .isEqualTo(new Usage(40, 5, 60, 0, 0));
    assertThat(
            Usages.parse(
                Fixtures.tree(
                    obj(
                        "input_tokens",
                        100,
                        "output_tokens",
                        9,
                        "input_tokens_details",
                        obj("cached_tokens", 30),
                        "output_tokens_details",
                        obj("reasoning_tokens", 4)))))
        .isEqualTo(new Usage(70, 9, 30, 0, 4));
    assertThat(
            Usages.parse(
                Fixtures.tree(
                    obj(
                        "input_tokens",
                        3,
                        "output_tokens",
                        9,
                        "cache_read_input_tokens",
                        300,
                        "cache_creation_input_tokens",
                        20))))
        .isEqualTo(new Usage(3, 9, 300, 20, 0));
    assertThat(Usages.parse(Fixtures.tree(obj("total", 1)))).isNull();
    assertThat(Arrays.asList(Usages.parse(null))).containsOnlyNulls();
  }
}
