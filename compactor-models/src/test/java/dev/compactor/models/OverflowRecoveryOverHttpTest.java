package dev.compactor.models;

import static dev.compactor.models.testing.Fixtures.CONTEXT_LENGTH_EXCEEDED;
import static dev.compactor.models.testing.Fixtures.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.policy.Trigger;
import dev.compactor.core.recovery.OverflowRecovery;
import dev.compactor.core.recovery.RecoveryFailedException;
import dev.compactor.core.recovery.RecoveryResult;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.models.anthropic.AnthropicMessagesModel;
import dev.compactor.models.openai.OpenAiChatCompletionsModel;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Overflow recovery with real clients against local servers on 127.0.0.1 that reject requests as
 * too long in each provider's documented way.
 */
class OverflowRecoveryOverHttpTest {
  private static final String LLAMA_OVERFLOW =
      "{\"error\":{\"code\":400,\"type\":\"exceed_context_size_error\",\"message\":\"request"
          + " (13392 tokens) exceeds the available context size (8192 tokens), try increasing"
          + " it\",\"n_prompt_tokens\":13392,\"n_ctx\":8192}}";
  private static final String CC_OK =
      "{\"id\":\"c\",\"model\":\"qwen3\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
          + "\"assistant\",\"content\":\"done\"},\"finish_reason\":\"stop\"}],"
          + "\"usage\":{\"prompt_tokens\":900,\"completion_tokens\":1}}";
  private static final String ANTHROPIC_OVERFLOW =
      "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is"
          + " too long: 208656 tokens > 200000 maximum\"}}";
  private static final String ANTHROPIC_OK =
      "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\","
          + "\"content\":[{\"type\":\"text\",\"text\":\"done\"}],\"stop_reason\":\"end_turn\","
          + "\"usage\":{\"input_tokens\":900,\"output_tokens\":1}}";

  private final FakeModelServer server = FakeModelServer.start();
  private final List<Duration> sleeps = new ArrayList<>();
  private final List<AppliedCompaction> journal = new ArrayList<>();
  private final OverflowRecovery recovery =
      new OverflowRecovery(
          Clock.fixed(Instant.parse("2026-03-02T09:00:00Z"), ZoneOffset.UTC), journal::add);

  @AfterEach
  void stop() {
    server.close();
  }

  private ChatModel llama() {
    return new OpenAiChatCompletionsModel(
        ModelProvider.LLAMACPP, "qwen3", options(server.url() + "/v1", sleeps).build());
  }

  private static PolicyContext ctx() {
    return PolicyContext.of(
        "llamacpp/qwen3",
        100_000,
        CompressionConfig.builder().counter(TokenCounters.estimate()).build());
  }

  /** System prompt, a request, many tool steps (s7 pinned), the newest request, a final answer. */
  static List<Message> session(int steps) {
    List<Message> out = new ArrayList<>();
    Instant ts = Instant.parse("2026-03-01T10:00:00Z");
    out.add(message(Role.SYSTEM, "sys", "You are a careful agent.", ts));
    out.add(message(Role.USER, "u-first", "Refactor the billing module.", ts = ts.plusSeconds(1)));
    for (int i = 0; i < steps; i++) {
      out.add(
          Message.builder(Role.ASSISTANT)
              .id("s" + i)
              .content("Step " + i + ".")
              .pinned(i == 7)
              .toolCalls(
                  List.of(new ToolCall("call_" + i, "shell", "{\"cmd\":\"make step" + i + "\"}")))
              .timestamp(ts = ts.plusSeconds(1))
              .build());
      out.add(
          Message.builder(Role.TOOL)
              .id("s" + i + "-r")
              .toolCallId("call_" + i)
              .content(("step " + i + " built fine. ").repeat(40))
              .timestamp(ts = ts.plusSeconds(1))
              .build());
    }
    out.add(message(Role.USER, "u-new", "Now run the whole test suite.", ts = ts.plusSeconds(1)));
    out.add(message(Role.ASSISTANT, "final", "Running it now.", ts.plusSeconds(1)));
    return out;
  }

  private static InMemoryConversation inMemory(List<Message> messages) {
    return new InMemoryConversation(new InMemoryMasterLog(messages));
  }

  private static Message message(Role role, String id, String content, Instant ts) {
    return Message.builder(role).id(id).content(content).timestamp(ts).build();
  }

  private static ChatRequest request(InMemoryConversation c) {
    return ChatRequest.builder().messages(c.activeMessages()).maxOutputTokens(512).build();
  }

  private List<Integer> bodySizes() {
    return server.requests().stream().map(r -> r.body().length()).toList();
  }

  private static void assertStrictlyDecreasing(List<Integer> sizes) {
    for (int i = 1; i < sizes.size(); i++) {
      assertThat(sizes.get(i)).as("request %d of %s", i, sizes).isLessThan(sizes.get(i - 1));
    }
  }

  /**
   * Every request carries the protected messages verbatim, and its tool calls keep their results.
   */
  private void assertEveryRequestKeepsTheProtectedMessages() {
    for (RecordedRequest r : server.requests()) {
      JsonNode msgs = r.json().get("messages");
      List<String> contents = new ArrayList<>();
      Set<String> calls = new HashSet<>();
      Set<String> results = new HashSet<>();
      for (JsonNode m : msgs) {
        contents.add(m.path("content").asText());
        for (JsonNode c : m.path("tool_calls")) {
          calls.add(c.get("id").asText());
        }
        if (m.has("tool_call_id")) {
          results.add(m.get("tool_call_id").asText());
        }
      }
      assertThat(contents)
          .contains(
              "You are a careful agent.",
              "Step 7.",
              "Now run the whole test suite.",
              "Running it now.");
      assertThat(results).isEqualTo(calls);
    }
  }

  @ParameterizedTest(name = "llama.cpp rejects the first {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9})
  void llamaCpp_rejectsFirstN_recoversWithNRetries_orRestoresAfterEight(int n) {
    for (int i = 0; i < n; i++) {
      server.enqueue(Reply.raw(400, LLAMA_OVERFLOW));
    }
    server.enqueue(Reply.raw(200, CC_OK));
    InMemoryConversation c = inMemory(session(400));
    View before = c.activeView();
    int master = c.master().size();

    if (n <= 8) {
      RecoveryResult r = recovery.call(c, llama(), request(c), ctx());
      assertThat(r.response().text()).isEqualTo("done");
      assertThat(r.report().retries()).isEqualTo(n);
      assertThat(server.requests()).hasSize(n + 1);
      assertThat(c.activeView().id()).isEqualTo("compacted-001");
      assertThat(journal)
          .singleElement()
          .extracting(AppliedCompaction::trigger)
          .isEqualTo(Trigger.OVERFLOW);
      // What the server saw last is what is now active.
      assertThat(server.lastRequest().json().get("messages").size())
          .isEqualTo(r.report().attempts().get(n).messages());
      assertThat(c.master().size()).isEqualTo(master + 1); // + the UI-only status line
      for (ViewEntry e : c.activeView().entries()) {
        if (e instanceof ViewEntry.Synthesized s) {
          assertThat(c.recover(s.message().id())).hasSize(s.covers().size());
        }
      }
    } else {
      RecoveryFailedException e =
          catchThrowableOfType(
              () -> recovery.call(c, llama(), request(c), ctx()), RecoveryFailedException.class);
      assertThat(e.report().retries()).isEqualTo(8);
      assertThat(e.promptTokens()).hasValue(13392);
      assertThat(server.requests()).hasSize(9);
      assertThat(c.activeView()).isSameAs(before);
      assertThat(c.views()).hasSize(1);
      assertThat(c.master().size()).isEqualTo(master);
      assertThat(journal).isEmpty();
    }
    assertStrictlyDecreasing(bodySizes());
    assertEveryRequestKeepsTheProtectedMessages();
    assertThat(sleeps).as("an overflow is never retried by the transport").isEmpty();
  }

  @Test
  void overflowThatNeverGoesAway_atMostEightRetries_eachSmallerOnTheWire_thenRestores() {
    for (int i = 0; i < 12; i++) {
      server.enqueue(Reply.raw(400, CONTEXT_LENGTH_EXCEEDED));
    }
    InMemoryConversation c = inMemory(session(60));
    View before = c.activeView();

    RecoveryFailedException e =
        catchThrowableOfType(
            () -> recovery.call(c, llama(), request(c), ctx()), RecoveryFailedException.class);

    assertThat(server.requests().size()).isBetween(2, 9);
    assertThat(e.report().retries()).isEqualTo(server.requests().size() - 1);
    assertStrictlyDecreasing(bodySizes());
    assertEveryRequestKeepsTheProtectedMessages();
    assertThat(c.activeView()).isSameAs(before);
    assertThat(c.views()).hasSize(1);
  }

  @Test
  void streamFailingAfterPartialOutput_isNotRetried() {
    server.enqueue(
        Reply.rawData(
            "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Part\"},\"finish_reason\":null}]}",
            CONTEXT_LENGTH_EXCEEDED));
    InMemoryConversation c = inMemory(session(30));
    View before = c.activeView();
    StringBuilder seen = new StringBuilder();

    ContextOverflowException e =
        catchThrowableOfType(
            () ->
                recovery.stream(
                    c,
                    llama(),
                    request(c),
                    ctx(),
                    new StreamListener() {
                      @Override
                      public void onText(String delta) {
                        seen.append(delta);
                      }
                    }),
            ContextOverflowException.class);

    assertThat(e).isNotInstanceOf(RecoveryFailedException.class);
    assertThat(e.partialMessage().orElseThrow().content()).isEqualTo("Part");
    assertThat(seen).hasToString("Part");
    assertThat(server.requests()).hasSize(1);
    assertThat(c.activeView()).isSameAs(before);
  }

  @Test
  void streamOverflowBeforeAnyOutput_isRecovered() {
    server.enqueue(Reply.rawData(CONTEXT_LENGTH_EXCEEDED));
    server.enqueue(
        Reply.rawData(
            "{\"id\":\"c2\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":\"stop\"}]}",
            "[DONE]"));
    InMemoryConversation c = inMemory(session(30));

    RecoveryResult r = recovery.stream(c, llama(), request(c), ctx(), StreamListener.NONE);

    assertThat(r.response().text()).isEqualTo("done");
    assertThat(r.report().retries()).isEqualTo(1);
    assertStrictlyDecreasing(bodySizes());
  }

  @Test
  void anthropic_promptTooLong_recovers_andEveryRequestKeepsItsRoleRules() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(Reply.raw(400, ANTHROPIC_OVERFLOW));
    }
    server.enqueue(Reply.raw(200, ANTHROPIC_OK));
    AnthropicMessagesModel model =
        new AnthropicMessagesModel("claude-x", options(server.url(), sleeps).build());
    InMemoryConversation c = inMemory(session(80));

    RecoveryResult r = recovery.call(c, model, request(c), ctx());

    assertThat(r.report().retries()).isEqualTo(3);
    assertStrictlyDecreasing(bodySizes());
    for (RecordedRequest req : server.requests()) {
      JsonNode msgs = req.json().get("messages");
      assertThat(req.json().get("system").toString()).contains("You are a careful agent.");
      assertThat(msgs.get(0).get("role").asText()).isEqualTo("user");
    }
  }
}
