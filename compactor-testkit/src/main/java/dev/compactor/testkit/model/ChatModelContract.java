package dev.compactor.testkit.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.AuthenticationException;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.ToolSpec;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link ChatModel} client must keep against its provider's wire format, as a
 * JUnit 5 test suite to extend. Each test runs the client against a {@link FakeModelServer} that
 * validates requests as the provider does, so a client passes only if everything it sends would be
 * accepted.
 *
 * <p>Checked, for {@link ChatModel#chat} and {@link ChatModel#stream}:
 *
 * <ul>
 *   <li>text answers arrive with role assistant, the reported usage and finish reason {@code STOP};
 *       streamed text arrives in deltas that join to the final content, and {@code onComplete} is
 *       called once with the returned response;
 *   <li>tool calls arrive with their id, name and arguments (as JSON), finish reason {@code
 *       TOOL_CALLS};
 *   <li>a conversation with a system prompt, consecutive user messages, a tool round trip with
 *       parallel calls, and {@code uiOnly} messages is sent so that the provider accepts it, {@code
 *       uiOnly} messages left out;
 *   <li>a context overflow (the provider's real error body, also when the server's context window
 *       is exceeded) is a {@link ContextOverflowException}; HTTP 429 is a {@link
 *       RetryableModelException}; HTTP 401 an {@link AuthenticationException}.
 * </ul>
 *
 * <pre>{@code
 * class MyClientContractTest extends ChatModelContract {
 *   protected WireFormat wireFormat() { return WireFormat.CHAT_COMPLETIONS; }
 *   protected ChatModel client(String baseUrl) {
 *     return new MyClient(baseUrl, "sk-test", RetryPolicy.none());
 *   }
 * }
 * }</pre>
 */
public abstract class ChatModelContract {
  /** The server the current test runs against; started before and closed after each test. */
  protected FakeModelServer server;

  /** The wire format the client speaks. */
  protected abstract WireFormat wireFormat();

  /**
   * A client of the model {@link #modelName()} whose requests go to {@code baseUrl} ({@code
   * http://127.0.0.1:port/v1}), with a test key and <em>without retries</em>: the contract scripts
   * one reply per call.
   */
  protected abstract ChatModel client(String baseUrl);

  /** The model name the client sends (default {@code test-model}). */
  protected String modelName() {
    return "test-model";
  }

  @BeforeEach
  void startFakeModelServer() {
    server = FakeModelServer.start();
  }

  @AfterEach
  void stopFakeModelServer() {
    server.close();
  }

  private ChatModel model() {
    return client(server.baseUrl());
  }

  private static ChatRequest hello() {
    return ChatRequest.of(List.of(Message.user("Hello there")));
  }

  private void assertOneAcceptedRequest() {
    assertThat(server.requests()).hasSize(1);
    RecordedRequest r = server.lastRequest();
    assertThat(r.format()).as("the path %s", r.path()).isEqualTo(wireFormat());
    assertThat(r.rejection()).as("the provider's verdict on %s", r.body()).isNull();
  }

  // ------------------------------------------------------------------ answers

  @Test
  void chat_textAnswer_hasContentUsageAndStop() {
    server.enqueue(Reply.text("General Kenobi.").usage(12, 3));

    ChatResponse r = model().chat(hello());

    assertOneAcceptedRequest();
    assertThat(server.lastRequest().streaming()).isFalse();
    assertThat(server.lastRequest().lastUserText()).isEqualTo("Hello there");
    assertThat(r.message().content()).isEqualTo("General Kenobi.");
    assertThat(r.message().toolCalls()).isEmpty();
    assertStoppedWithUsage(r, 12, 3);
  }

  @Test
  void stream_textAnswer_arrivesInDeltas_andCompletesOnce() {
    server.enqueue(Reply.text("General Kenobi, you are a bold one.").usage(12, 9));
    RecordingStreamListener listener = new RecordingStreamListener();

    ChatResponse r = model().stream(hello(), listener);

    assertOneAcceptedRequest();
    assertThat(server.lastRequest().streaming()).isTrue();
    assertThat(r.message().content()).isEqualTo("General Kenobi, you are a bold one.");
    assertThat(listener.textDeltas()).hasSizeGreaterThan(1);
    assertThat(listener.text()).isEqualTo(r.message().content());
    assertThat(listener.completions()).containsExactly(r);
    assertThat(listener.kinds()).last().isEqualTo(RecordingStreamListener.Kind.COMPLETE);
    assertStoppedWithUsage(r, 12, 9);
  }

  private static void assertStoppedWithUsage(ChatResponse r, long input, long output) {
    assertThat(r.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(r.usage()).isNotNull();
    assertThat(r.usage().totalInput()).isEqualTo(input);
    assertThat(r.usage().output()).isEqualTo(output);
  }

  @Test
  void chat_toolCalls_arriveWithIdNameAndArguments() {
    server.enqueue(
        Reply.toolCall("call_1", "read_file", "{\"path\":\"a.txt\"}")
            .andToolCall("call_2", "read_file", "{\"path\":\"b.txt\"}"));

    ChatResponse r = model().chat(withTools(hello()));

    assertOneAcceptedRequest();
    assertToolCalls(r);
  }

  @Test
  void stream_toolCalls_arriveWithIdNameAndArguments() {
    server.enqueue(
        Reply.toolCall("call_1", "read_file", "{\"path\":\"a.txt\"}")
            .andToolCall("call_2", "read_file", "{\"path\":\"b.txt\"}"));
    RecordingStreamListener listener = new RecordingStreamListener();

    ChatResponse r = model().stream(withTools(hello()), listener);

    assertOneAcceptedRequest();
    assertToolCalls(r);
    assertThat(listener.toolCallDeltas()).isNotEmpty();
    assertThat(listener.completions()).containsExactly(r);
  }

  private static ChatRequest withTools(ChatRequest r) {
    return r.toBuilder()
        .tools(
            List.of(
                new ToolSpec(
                    "read_file",
                    "Reads a file",
                    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}")))
        .build();
  }

  private static void assertToolCalls(ChatResponse r) {
    assertThat(r.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    List<ToolCall> calls = r.message().toolCalls();
    assertThat(calls).extracting(ToolCall::id).containsExactly("call_1", "call_2");
    assertThat(calls).extracting(ToolCall::name).containsOnly("read_file");
    assertThat(calls.get(0).arguments().replace(" ", "")).isEqualTo("{\"path\":\"a.txt\"}");
    assertThat(calls.get(1).arguments().replace(" ", "")).isEqualTo("{\"path\":\"b.txt\"}");
  }

  // ------------------------------------------------------------------ what is sent

  /** A conversation with every shape the providers have rules for. */
  private static List<Message> agentConversation() {
    return List.of(
        Message.system("You are a careful assistant."),
        Message.user("Read a.txt and b.txt."),
        Message.user("Then say what they hold."),
        Message.assistant(
            "Reading both.",
            List.of(
                new ToolCall("call_1", "read_file", "{\"path\":\"a.txt\"}"),
                new ToolCall("call_2", "read_file", "{\"path\":\"b.txt\"}"))),
        Message.toolResult("call_1", "alpha"),
        Message.toolResult("call_2", "beta"),
        Message.user("note shown to people only").toBuilder().uiOnly(true).build(),
        Message.assistant("a.txt holds alpha, b.txt holds beta."),
        Message.user("Thanks. Anything else?"));
  }

  @Test
  void chat_agentConversation_isSentSoTheProviderAcceptsIt() {
    server.enqueue(Reply.text("No."));

    ChatResponse r = model().chat(withTools(ChatRequest.of(agentConversation())));

    assertOneAcceptedRequest();
    assertThat(r.message().content()).isEqualTo("No.");
    RecordedRequest sent = server.lastRequest();
    assertThat(sent.system()).contains("You are a careful assistant.");
    assertThat(sent.body())
        .contains("Read a.txt and b.txt.", "Then say what they hold.", "alpha", "beta")
        .contains("call_1", "call_2", "Thanks. Anything else?")
        .doesNotContain("note shown to people only");
  }

  @Test
  void stream_agentConversation_isSentSoTheProviderAcceptsIt() {
    server.enqueue(Reply.text("No."));

    ChatResponse r =
        model().stream(
            withTools(ChatRequest.of(agentConversation())), new RecordingStreamListener());

    assertOneAcceptedRequest();
    assertThat(r.message().content()).isEqualTo("No.");
    assertThat(server.lastRequest().body()).doesNotContain("note shown to people only");
  }

  // ------------------------------------------------------------------ errors

  @Test
  void chat_contextLengthExceeded_isAContextOverflow() {
    server.enqueue(Reply.contextLengthExceeded());

    assertThatThrownBy(() -> model().chat(hello())).isInstanceOf(ContextOverflowException.class);
  }

  @Test
  void stream_contextLengthExceeded_isAContextOverflow() {
    server.enqueue(Reply.contextLengthExceeded());

    assertThatThrownBy(() -> model().stream(hello(), new RecordingStreamListener()))
        .isInstanceOf(ContextOverflowException.class);
  }

  @Test
  void chat_promptLargerThanTheWindow_isAContextOverflow() {
    server.contextWindow(100);
    String big = "word ".repeat(1_000);

    assertThatThrownBy(() -> model().chat(ChatRequest.of(List.of(Message.user(big)))))
        .isInstanceOf(ContextOverflowException.class);
    assertThat(server.lastRequest().rejected()).isTrue();
    assertThat(server.pendingReplies()).isZero();
  }

  @Test
  void chat_rateLimited_isRetryable() {
    server.enqueue(Reply.rateLimited());

    assertThatThrownBy(() -> model().chat(hello())).isInstanceOf(RetryableModelException.class);
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void chat_unauthorized_isAnAuthenticationError() {
    server.enqueue(Reply.error(Reply.Error.AUTHENTICATION));

    assertThatThrownBy(() -> model().chat(hello())).isInstanceOf(AuthenticationException.class);
  }

  @Test
  void stream_errorAfterTheStreamBegan_isAModelException() {
    server.enqueue(Reply.overloaded().inStream());

    assertThatThrownBy(() -> model().stream(hello(), new RecordingStreamListener()))
        .isInstanceOf(ModelException.class);
  }
}
