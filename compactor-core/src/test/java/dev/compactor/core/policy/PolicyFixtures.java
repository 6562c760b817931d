package dev.compactor.core.policy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.MessageOverhead;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.tokens.TokenizerFamily;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small deterministic pieces for policy tests: one token per character, fake strategies. */
final class PolicyFixtures {
  private PolicyFixtures() {}

  /** One token per character, no per-message overhead. */
  static final TokenCounter CHARS =
      TokenCounters.custom(
          "policy-test-chars", TokenizerFamily.ESTIMATE, String::length, MessageOverhead.NONE);

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

  /** A settable clock. */
  static final class MutableClock extends Clock {
    Instant now = Instant.parse("2026-03-01T10:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }
  }

  /** "trim": replaces every tool output by a 1-token stub. */
  static final class StubOutputs implements ContextProvider {
    int calls;

    @Override
    public String name() {
      return "trim";
    }

    @Override
    public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
      return true;
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
  static final class Checkpoint implements ContextProvider {
    boolean fail;
    int calls;
    CompressionConfig lastConfig;

    @Override
    public String name() {
      return "summarize";
    }

    @Override
    public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
      return true;
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
