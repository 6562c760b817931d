package dev.compactor.log.imports;

import static dev.compactor.log.imports.Fixtures.jsonl;
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
import dev.compactor.wire.json.MessageCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClaudeCodeImporterTest {
  @TempDir Path dir;

  /** Builds a session: each event links to the previous one unless told otherwise. */
  private static final class Session {
    final List<Map<String, Object>> events = new ArrayList<>();
    String last;
    int n;
    boolean sidechain;

    String ts() {
      return String.format("2026-02-10T21:%02d:%02d.000Z", n / 60, n % 60);
    }

    Map<String, Object> base(String type, String parent) {
      n++;
      String uuid = "u" + n;
      Map<String, Object> e =
          obj(
              "parentUuid",
              parent,
              "isSidechain",
              sidechain,
              "userType",
              "external",
              "cwd",
              "/p",
              "sessionId",
              "s-1",
              "version",
              "2.1.38",
              "gitBranch",
              "main",
              "type",
              type,
              "uuid",
              uuid,
              "timestamp",
              ts());
      events.add(e);
      return e;
    }

    Map<String, Object> add(String type, Object message) {
      return add(type, message, last);
    }

    Map<String, Object> add(String type, Object message, String parent) {
      Map<String, Object> e = base(type, parent);
      if (message != null) {
        e.put("message", message);
      }
      last = (String) e.get("uuid");
      return e;
    }

    Map<String, Object> user(String text) {
      return add("user", obj("role", "user", "content", text));
    }

    Map<String, Object> assistant(String id, Object block, Map<String, Object> usage) {
      return add(
          "assistant",
          obj(
              "model",
              "claude-opus-4-6",
              "id",
              id,
              "type",
              "message",
              "role",
              "assistant",
              "content",
              List.of(block),
              "stop_reason",
              null,
              "usage",
              usage));
    }

    Map<String, Object> result(String callId, Object content, String parent) {
      return add(
          "user",
          obj(
              "role",
              "user",
              "content",
              List.of(obj("type", "tool_result", "tool_use_id", callId, "content", content))),
          parent);
    }

    Map<String, Object> progress() {
      Map<String, Object> e = base("progress", last);
      e.put("data", obj("type", "hook_progress"));
      last = (String) e.get("uuid");
      return e;
    }

    String text() {
      List<Object> lines = new ArrayList<>();
      lines.add(obj("type", "file-history-snapshot", "messageId", "x", "snapshot", obj()));
      lines.addAll(events);
      return jsonl(lines);
    }
  }

  private static Map<String, Object> usage(int in, int out, int read, int write) {
    return obj(
        "input_tokens",
        in,
        "cache_creation_input_tokens",
        write,
        "cache_read_input_tokens",
        read,
        "output_tokens",
        out,
        "service_tier",
        "standard");
  }

  private static Map<String, Object> text(String t) {
    return obj("type", "text", "text", t);
  }

  private static Map<String, Object> toolUse(String id, String command) {
    return obj("type", "tool_use", "id", id, "name", "Bash", "input", obj("command", command));
  }

  private ImportedConversation read(Session s, String name) throws IOException {
    Path p = Fixtures.writeGzip(dir, name, s.text());
    ImportResult r = Importers.read(p);
    assertThat(r.format()).isEqualTo("claude-code");
    ImportedConversation c = r.single();
    assertThat(new ViewValidator().validate(c.messages())).isEmpty();
    assertThat(new ViewValidator(ViewValidator.Target.ANTHROPIC).validate(c.messages())).isEmpty();
    return c;
  }

  @Test
  void eventsOfOneApiMessage_mergeIntoOneAssistantMessage_withParallelResultsAfterIt()
      throws IOException {
    Session s = new Session();
    s.progress();
    s.user("list and count");
    s.assistant("msg_1", text("\n\n"), usage(3, 10, 100, 50));
    s.assistant(
        "msg_1",
        obj("type", "thinking", "thinking", "two commands", "signature", "sig=="),
        usage(3, 10, 100, 50));
    s.assistant("msg_1", text("Running both."), usage(3, 10, 100, 50));
    String a1 =
        (String) s.assistant("msg_1", toolUse("toolu_1", "ls"), usage(3, 10, 100, 50)).get("uuid");
    String a2 =
        (String) s.assistant("msg_1", toolUse("toolu_2", "wc"), usage(3, 42, 100, 50)).get("uuid");
    s.progress();
    // Claude Code hangs each result off its own tool_use event; only the last stays on the chain.
    s.result("toolu_1", "a\nb", a1);
    s.result("toolu_2", List.of(text("2"), text("lines")), a2);
    s.assistant("msg_2", text("Two files."), usage(1, 5, 160, 10));

    ImportedConversation c = read(s, "session.jsonl.gz");

    List<Message> m = c.messages();
    assertThat(m)
        .extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT);
    Message a = m.get(1);
    assertThat(a.content()).isEqualTo("\n\nRunning both.");
    assertThat(a.reasoning())
        .containsExactly(new ReasoningBlock("thinking", "two commands", "sig=="));
    assertThat(a.toolCalls())
        .containsExactly(
            new ToolCall("toolu_1", "Bash", "{\"command\":\"ls\"}"),
            new ToolCall("toolu_2", "Bash", "{\"command\":\"wc\"}"));
    assertThat(a.metadata().model()).isEqualTo("claude-opus-4-6");
    assertThat(a.metadata().provider()).isEqualTo("anthropic");
    assertThat(a.metadata().usage()).isEqualTo(new Usage(3, 42, 100, 50, 0));
    assertThat(a.metadata().extra()).containsEntry("message_id", "msg_1");
    assertThat(a.metadata().input())
        .isEqualTo(new InputFingerprint(1, Digests.prefix(m.subList(0, 1)), "claude-opus-4-6"));
    assertThat(m.get(4).metadata().input())
        .isEqualTo(new InputFingerprint(4, Digests.prefix(m.subList(0, 4)), "claude-opus-4-6"));
    assertThat(m.get(2).toolCallId()).isEqualTo("toolu_1");
    assertThat(m.get(2).content()).isEqualTo("a\nb");
    assertThat(m.get(3).content()).isEqualTo("2\n\nlines");
    assertThat(c.metadata()).containsEntry("sessionId", "s-1").containsEntry("cwd", "/p");
    assertThat(c.notes())
        .anySatisfy(n -> assertThat(n).contains("merged 6 assistant events into 2"))
        .anySatisfy(n -> assertThat(n).contains("2 progress").contains("1 file-history-snapshot"));
  }

  @Test
  void importedMessages_surviveTheStoreFormat_withTheWireUsageKeptBesideTheTypedOne()
      throws IOException {
    Session s = new Session();
    s.user("count");
    s.assistant("msg_1", text("Counting."), usage(3, 10, 100, 50));

    List<Message> m = read(s, "session.jsonl").messages();
    MessageCodec codec = new MessageCodec();

    Message a = m.get(1);
    assertThat(a.metadata().extra()).doesNotContainKey("usage").containsKey("api_usage");
    for (Message x : m) {
      String line = codec.writeLine(x);
      assertThat(codec.writeLine(codec.readLine(line))).isEqualTo(line);
    }
  }

  @Test
  void compaction_isCrossedByTheLogicalParent_andTheSummaryIsKeptUiOnly() throws IOException {
    Session s = new Session();
    s.user("first task");
    s.assistant("msg_1", text("done one"), usage(3, 5, 0, 100));
    String beforeBoundary = s.last;
    Map<String, Object> boundary = s.add("system", null, null);
    boundary.put("subtype", "compact_boundary");
    boundary.put("content", "Conversation compacted");
    boundary.put("logicalParentUuid", beforeBoundary);
    boundary.put("compactMetadata", obj("trigger", "auto", "preTokens", 1000));
    Map<String, Object> summary = s.user("This session is being continued… Summary: did one.");
    summary.put("isCompactSummary", true);
    summary.put("isVisibleInTranscriptOnly", true);
    s.user("second task");
    s.assistant("msg_2", text("done two"), usage(3, 5, 0, 200));

    ImportedConversation c = read(s, "compacted.jsonl");

    List<Message> m = c.messages();
    assertThat(m)
        .extracting(Message::content)
        .containsExactly(
            "first task",
            "done one",
            "Conversation compacted",
            "This session is being continued… Summary: did one.",
            "second task",
            "done two");
    assertThat(m.get(2).role()).isEqualTo(Role.SYSTEM);
    assertThat(m.get(2).uiOnly()).isTrue();
    assertThat(m.get(2).metadata().extra()).containsEntry("subtype", "compact_boundary");
    assertThat(m.get(3).role()).isEqualTo(Role.USER);
    assertThat(m.get(3).uiOnly()).isTrue();
    assertThat(m.get(3).metadata().extra()).containsEntry("compact_summary", true);
    assertThat(m.get(1).metadata().input()).isNotNull();
    assertThat(m.get(5).metadata().usage()).isNotNull();
    assertThat(m.get(5).metadata().input()).isNull();
    assertThat(c.notes())
        .anySatisfy(n -> assertThat(n).contains("compaction boundary").contains(beforeBoundary))
        .anySatisfy(n -> assertThat(n).contains("compaction summary"))
        .anySatisfy(n -> assertThat(n).contains("usage anchors set only before"));
  }

  @Test
  void sideChains_abandonedBranches_andRepeatedEvents_areSkipped() throws IOException {
    Session s = new Session();
    s.user("hello");
    String root = s.last;
    s.assistant("msg_old", text("abandoned answer"), usage(1, 1, 1, 1));
    Map<String, Object> dup = new java.util.LinkedHashMap<>(s.events.get(s.events.size() - 1));
    s.assistant("msg_new", text("kept answer"), usage(1, 1, 1, 1)).put("parentUuid", root);
    s.sidechain = true;
    s.user("side task");
    s.sidechain = false;
    s.events.add(dup);
    Map<String, Object> meta = s.user("<system-reminder>context</system-reminder>");
    meta.put("isMeta", true);
    meta.put("parentUuid", s.events.get(2).get("uuid"));
    s.last = (String) meta.get("uuid");
    s.assistant("msg_3", text("ok"), usage(1, 1, 1, 1));

    ImportedConversation c = read(s, "branches.jsonl");

    assertThat(c.messages())
        .extracting(Message::content)
        .containsExactly(
            "hello", "kept answer", "<system-reminder>context</system-reminder>", "ok");
    assertThat(c.messages().get(2).hidden()).isTrue();
    assertThat(c.notes())
        .anySatisfy(n -> assertThat(n).contains("1 side-chain event"))
        .anySatisfy(n -> assertThat(n).contains("1 repeated event"))
        .anySatisfy(
            n -> assertThat(n).contains("1 user/assistant/system event(s) off the main chain"));
  }

  @Test
  void aSubagentFile_allSideChain_continuingAnotherFile_importsWithoutUsageAnchors()
      throws IOException {
    Session s = new Session();
    s.sidechain = true;
    s.add("user", obj("role", "user", "content", "summarize"), "parent-in-main-file");
    s.assistant("msg_1", text("summary"), usage(3, 9, 5000, 10));
    Path sub = Files.createDirectories(dir.resolve("s-1/subagents"));

    ImportResult r = Importers.read(Fixtures.write(sub, "agent-a1.jsonl", s.text()));

    ImportedConversation c = r.single();
    assertThat(c.name()).isEqualTo("agent-a1");
    assertThat(c.messages()).extracting(Message::content).containsExactly("summarize", "summary");
    assertThat(c.messages().get(1).metadata().usage()).isNotNull();
    assertThat(c.messages().get(1).metadata().input()).isNull();
    assertThat(c.notes()).anySatisfy(n -> assertThat(n).contains("parent-in-main-file"));
  }

  @Test
  void aResultWithoutItsCall_becomesAUserMessage_andTextAfterResultsFollowsThem()
      throws IOException {
    Session s = new Session();
    s.user("go");
    s.assistant("msg_1", toolUse("toolu_1", "sleep 100"), usage(1, 1, 1, 1));
    s.add(
        "user",
        obj(
            "role",
            "user",
            "content",
            List.of(
                obj(
                    "type",
                    "tool_result",
                    "tool_use_id",
                    "toolu_1",
                    "is_error",
                    true,
                    "content",
                    "The user doesn't want to proceed"),
                text("[Request interrupted by user for tool use]"))));
    s.result("toolu_unknown", "stray", s.last);

    ImportedConversation c = read(s, "interrupted.jsonl");

    List<Message> m = c.messages();
    assertThat(m)
        .extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.USER, Role.USER);
    assertThat(m.get(2).metadata().extra()).containsEntry("is_error", true);
    assertThat(m.get(3).content()).isEqualTo("[Request interrupted by user for tool use]");
    assertThat(m.get(4).content()).isEqualTo("stray");
    assertThat(m.get(4).metadata().extra()).containsEntry("orphan_tool_call_id", "toolu_unknown");
    assertThat(c.problems())
        .anySatisfy(
            n -> assertThat(n).contains("1 tool result(s) without").contains("toolu_unknown"));
  }
}
