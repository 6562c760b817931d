package dev.compactor.core.policy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.SettableClock;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.TestProviders;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.CharCounter;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.InMemoryConversation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small deterministic pieces for policy tests: one token per character, fake strategies. */
final class PolicyFixtures {
  private PolicyFixtures() {}

  /** One token per character, no per-message overhead. */
  static final TokenCounter CHARS = CharCounter.CHARS;

  static String text(int tokens) {
    return "x".repeat(tokens);
  }

  static Message user(String id, int tokens) {
    return Message.builder(Role.USER).id(id).content(text(tokens)).build();
  }

  static Message assistant(String id, int tokens) {
    return Message.builder(Role.ASSISTANT).id(id).content(text(tokens)).build();
  }

  static Message call(String id, String callId) {
    return Message.builder(Role.ASSISTANT)
        .id(id)
        .toolCalls(List.of(new ToolCall(callId, "shell", "")))
        .build();
  }

  static Message result(String id, String callId, int tokens) {
    return Message.builder(Role.TOOL).id(id).toolCallId(callId).content(text(tokens)).build();
  }

  /**
   * Appends one answered tool turn: request {@code u1} of {@code userTokens}, call {@code a1} (id
   * {@code c1}), its result {@code t1} of {@code outputTokens}, answer {@code a2} of {@code
   * answerTokens}.
   */
  static void appendToolTurn(
      InMemoryConversation conv, int userTokens, int outputTokens, int answerTokens) {
    appendAnsweredCall(conv, userTokens, outputTokens);
    conv.append(assistant("a2", answerTokens));
  }

  /** {@link #appendToolTurn} up to the call's result: {@code u1}, {@code a1}, {@code t1}. */
  static void appendAnsweredCall(InMemoryConversation conv, int userTokens, int outputTokens) {
    conv.append(user("u1", userTokens));
    conv.append(call("a1", "c1"));
    conv.append(result("t1", "c1", outputTokens));
  }

  /** A settable clock, at 2026-03-01T10:00:00Z to begin with. */
  static SettableClock startClock() {
    return new SettableClock(Instant.parse("2026-03-01T10:00:00Z"));
  }

  /** "trim": replaces every tool output by a 1-token stub. */
  static final class StubOutputs extends TestProviders.Eager {
    int calls;

    StubOutputs() {
      super("trim");
    }

    @Override
    public CompactionResult compress(List<Message> messages, CompressionConfig config) {
      calls++;
      List<Message> out = new ArrayList<>();
      Map<MessageId, List<MessageId>> prov = new LinkedHashMap<>();
      for (Message m : messages) {
        if (m.role() == Role.TOOL && m.content().length() > 1) {
          Message stub = m.toBuilder().id(m.id() + "~stub").content("s").build();
          prov.put(stub.id(), List.of(m.id()));
          out.add(stub);
        } else {
          out.add(m);
        }
      }
      return CompactionResult.of(messages, out, List.of(), prov);
    }
  }

  /** "summarize": one checkpoint for everything but the last message; may fail. */
  static final class Checkpoint extends TestProviders.Eager {
    boolean fail;
    int calls;
    CompressionConfig lastConfig;

    Checkpoint() {
      super("summarize");
    }

    @Override
    public CompactionResult compress(List<Message> messages, CompressionConfig config) {
      calls++;
      lastConfig = config;
      if (fail) {
        throw new CompactorException("model unavailable");
      }
      List<Message> covered = messages.subList(0, messages.size() - 1);
      Message cp =
          Message.builder(Role.USER).id("checkpoint-" + calls).content("## Objective\nok").build();
      return CompactionResult.of(
          messages,
          List.of(cp, messages.get(messages.size() - 1)),
          List.of(),
          Map.of(cp.id(), covered.stream().map(Message::id).toList()));
    }
  }
}
