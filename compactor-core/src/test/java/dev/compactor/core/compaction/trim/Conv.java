package dev.compactor.core.compaction.trim;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Builds small conversations with ids m0, m1, … and increasing timestamps. */
final class Conv {
  private final List<Message> list = new ArrayList<>();
  private Instant clock = Instant.parse("2026-02-01T10:00:00Z");
  private int calls;

  private Message.Builder next(Role role) {
    clock = clock.plus(Duration.ofSeconds(5));
    return Message.builder(role).id("m" + list.size()).timestamp(clock);
  }

  Conv add(Message.Builder b) {
    list.add(b.build());
    return this;
  }

  Conv system(String text) {
    return add(next(Role.SYSTEM).content(text));
  }

  Conv user(String text) {
    return add(next(Role.USER).content(text));
  }

  Conv pinnedUser(String text) {
    return add(next(Role.USER).content(text).pinned(true));
  }

  Conv assistant(String text) {
    return add(next(Role.ASSISTANT).content(text));
  }

  Conv thinkingAssistant(String text) {
    return add(
        next(Role.ASSISTANT)
            .content(text)
            .reasoning(List.of(new ReasoningBlock("thinking", "hmm", "sig"))));
  }

  /** An assistant message with one call and its result. */
  Conv tool(String name, String args, String output) {
    return tool(name, args, output, false);
  }

  Conv tool(String name, String args, String output, boolean pinnedResult) {
    String id = "call_" + (calls++);
    add(next(Role.ASSISTANT).toolCalls(List.of(new ToolCall(id, name, args))));
    return add(next(Role.TOOL).toolCallId(id).content(output).pinned(pinnedResult));
  }

  /** An assistant message with parallel calls and their results, answered in reverse order. */
  Conv parallel(String... outputs) {
    List<ToolCall> cs = new ArrayList<>();
    for (int i = 0; i < outputs.length; i++) {
      cs.add(new ToolCall("call_" + (calls++), "read_file", "{\"path\":\"f" + i + ".txt\"}"));
    }
    add(next(Role.ASSISTANT).toolCalls(cs));
    for (int i = outputs.length - 1; i >= 0; i--) {
      add(next(Role.TOOL).toolCallId(cs.get(i).id()).content(outputs[i]));
    }
    return this;
  }

  /** An assistant message whose call has no result yet. */
  Conv pendingCall(String name, String args) {
    String id = "call_" + (calls++);
    return add(next(Role.ASSISTANT).toolCalls(List.of(new ToolCall(id, name, args))));
  }

  List<Message> build() {
    return List.copyOf(list);
  }

  /** {@code lines} numbered lines of roughly 36 characters each. */
  static String lines(String prefix, int lines) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      sb.append(prefix).append(String.format("%05d", i)).append(" lorem ipsum dolor sit\n");
    }
    return sb.toString();
  }
}
