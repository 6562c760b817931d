package dev.compactor.core.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.InputFingerprints;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.CharCounter;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.IntPredicate;

/** A deterministic conversation shape and a scripted model for overflow recovery tests. */
final class RecoveryFixtures {
  private RecoveryFixtures() {}

  /** One token per character, no per-message overhead. */
  static final TokenCounter CHARS = CharCounter.CHARS;

  static PolicyContext ctx(long budget) {
    return PolicyContext.of(
        "test/model", budget, CompressionConfig.builder().counter(CHARS).build());
  }

  /** Builds a conversation with increasing timestamps. */
  static final class Builder {
    final List<Message> messages = new ArrayList<>();
    private Instant ts = Instant.parse("2026-03-01T10:00:00Z");

    private Message add(Message.Builder b) {
      ts = ts.plusSeconds(1);
      Message m = b.timestamp(ts).build();
      messages.add(m);
      return m;
    }

    Builder system(String id, int chars) {
      add(Message.builder(Role.SYSTEM).id(id).content(text(id, chars)));
      return this;
    }

    Builder user(String id, int chars) {
      add(Message.builder(Role.USER).id(id).content(text(id, chars)));
      return this;
    }

    Builder assistant(String id, int chars) {
      add(Message.builder(Role.ASSISTANT).id(id).content(text(id, chars)));
      return this;
    }

    /** An assistant call with one result of {@code chars} characters (prose, so trim may stub). */
    Builder step(String id, int chars, boolean pinned) {
      return step(id, chars, pinned, false);
    }

    Builder step(String id, int chars, boolean pinned, boolean reasoning) {
      Message.Builder a =
          Message.builder(Role.ASSISTANT)
              .id(id)
              .content("run " + id)
              .pinned(pinned)
              .toolCalls(List.of(new ToolCall("call-" + id, "shell", "{}")));
      if (reasoning) {
        a.reasoning(List.of(new ReasoningBlock("thinking", "think " + id, "sig-" + id)));
      }
      add(a);
      add(
          Message.builder(Role.TOOL)
              .id(id + "-r")
              .toolCallId("call-" + id)
              .content(text(id + "-r", chars)));
      return this;
    }

    Builder uiOnly(String id) {
      add(Message.builder(Role.SYSTEM).id(id).content("status " + id).uiOnly(true));
      return this;
    }

    List<Message> build() {
      return List.copyOf(messages);
    }
  }

  /** Prose of about {@code chars} characters, naming no file and no error. */
  static String text(String id, int chars) {
    StringBuilder sb = new StringBuilder(id).append(": ");
    while (sb.length() < chars) {
      sb.append("The work continues steadily. ");
    }
    return sb.substring(0, Math.max(chars, id.length() + 2));
  }

  /**
   * The standard shape: system head, a first request, {@code steps} tool steps (a user note every
   * ten, step s7 pinned), the newest request, two more steps and a final assistant answer.
   */
  static List<Message> agentSession(int steps) {
    Builder b = new Builder().system("sys", 40).user("u-first", 100);
    for (int i = 0; i < steps; i++) {
      if (i % 10 == 5) {
        b.user("u" + i, 60);
      }
      b.step("s" + i, 300, i == 7);
    }
    b.user("u-new", 80).step("after1", 250, false).step("after2", 250, false);
    b.assistant("final", 30);
    return b.build();
  }

  /**
   * A model that answers "ok" unless {@code overflowOn} says the n-th request (0-based) is too
   * long.
   */
  static final class ScriptedModel implements ChatModel {
    final List<List<Message>> requests = new ArrayList<>();
    IntPredicate overflowOn = n -> false;
    IntPredicate partialOn = n -> false;
    Long reportedPrompt;
    Long reportedWindow;
    ModelApi api = ModelApi.CHAT_COMPLETIONS;
    RuntimeException errorOnSecond;

    static ScriptedModel rejectingFirst(int n) {
      ScriptedModel m = new ScriptedModel();
      m.overflowOn = k -> k < n;
      return m;
    }

    @Override
    public String provider() {
      return "test";
    }

    @Override
    public String model() {
      return "model";
    }

    @Override
    public ModelApi api() {
      return api;
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
      int n = requests.size();
      requests.add(request.messages());
      if (errorOnSecond != null && n == 1) {
        throw errorOnSecond;
      }
      if (overflowOn.test(n)) {
        Message partial = partialOn.test(n) ? Message.assistant("Sure, here is") : null;
        throw new ContextOverflowException(
            "test: prompt is too long",
            new ModelError("test", partial == null ? 400 : 200, "invalid_request_error", null, ""),
            reportedPrompt == null ? OptionalLong.empty() : OptionalLong.of(reportedPrompt),
            reportedWindow == null ? OptionalLong.empty() : OptionalLong.of(reportedWindow),
            partial,
            null);
      }
      Message reply = InputFingerprints.stamp(Message.assistant("ok"), request.messages(), "model");
      return new ChatResponse(reply, null, FinishReason.STOP, "stop", null, "r" + n, "model");
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
      ChatResponse r = chat(request);
      listener.onText(r.text());
      listener.onComplete(r);
      return r;
    }

    /** Input sizes (policy counter) of every request, in order. */
    List<Long> sizes() {
      return requests.stream().map(CHARS::countMessages).toList();
    }
  }

  /** Every master message is referenced by the active view or covered by one of its entries. */
  static void assertNothingLost(Conversation c) {
    Set<MessageId> seen = new HashSet<>();
    for (ViewEntry e : c.activeView().entries()) {
      if (e instanceof ViewEntry.Ref r) {
        seen.add(r.id());
      } else if (e instanceof ViewEntry.Synthesized s) {
        seen.addAll(s.covers());
        assertThat(c.recover(s.message().id())).hasSize(s.covers().size());
      }
    }
    for (Message m : c.master().messages()) {
      assertThat(seen)
          .as("master message %s is in or behind the active view", m.id())
          .contains(m.id());
    }
  }

  /** Messages each request must carry verbatim. */
  static void assertVerbatim(List<List<Message>> requests, List<Message> protectedMessages) {
    for (int i = 0; i < requests.size(); i++) {
      for (Message p : protectedMessages) {
        assertThat(requests.get(i)).as("request %d carries %s verbatim", i, p.id()).contains(p);
      }
    }
  }

  static List<Message> byIds(List<Message> all, String... ids) {
    List<Message> out = new ArrayList<>();
    for (String id : ids) {
      out.add(all.stream().filter(m -> m.id().value().equals(id)).findFirst().orElseThrow());
    }
    return out;
  }

  static View copyOf(View v) {
    return new View(v.id(), v.entries());
  }
}
