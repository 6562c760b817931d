package dev.compactor.core.model;

/**
 * A chat model behind some provider's API.
 *
 * <p>Implementations are thread-safe: one instance may serve concurrent calls. Calls block the
 * calling thread. Retryable failures (429, 5xx, timeouts, connection resets) are retried by the
 * implementation according to its retry policy before they are thrown; streamed calls are retried
 * only while nothing has been delivered to the listener.
 *
 * <pre>{@code
 * ChatModel model = ChatModels.create("anthropic/claude-sonnet-4-5", ChatModelOptions.defaults());
 * ChatResponse r = model.chat(ChatRequest.of(List.of(Message.user("Hello"))));
 * conversation.append(r.message());
 * }</pre>
 */
public interface ChatModel {
  /** Provider name as in {@code metadata.provider}: {@code openai}, {@code anthropic}, … */
  String provider();

  /** The model requests go to unless they name another. */
  String model();

  /** The wire API this client speaks. */
  ModelApi api();

  /**
   * Sends the request and waits for the whole answer.
   *
   * @throws ContextOverflowException when the prompt does not fit the model's context window
   * @throws RetryableModelException when a transient failure persisted through every retry
   * @throws AuthenticationException when the key is missing, invalid or lacks permission
   * @throws UnknownModelException when the provider does not know the model
   * @throws NonRetryableModelException for any other rejected request or malformed response
   * @throws IllegalArgumentException when the request asks for something this API cannot do (e.g.
   *     OpenAI compaction on Chat Completions) or a tool schema is not a JSON object
   */
  ChatResponse chat(ChatRequest request);

  /**
   * Sends the request and streams the answer to {@code listener} as it arrives, then returns the
   * same response {@link #chat} would have. Errors that arrive inside the stream after HTTP 200 are
   * mapped like HTTP errors. When the stream fails midway, the exception's {@link
   * ModelException#partialMessage()} holds the text, reasoning and tool calls received so far.
   *
   * @throws ContextOverflowException when the prompt does not fit (also when signalled in-stream)
   * @throws RetryableModelException on transient failures, including a stream cut midway
   * @throws AuthenticationException when the key is missing, invalid or lacks permission
   * @throws UnknownModelException when the provider does not know the model
   * @throws NonRetryableModelException for any other rejected request or malformed stream
   * @throws IllegalArgumentException as for {@link #chat}
   */
  ChatResponse stream(ChatRequest request, StreamListener listener);
}
