package dev.compactor.core.model;

import dev.compactor.core.message.Usage;

/**
 * Receives a streamed response as it arrives. Every method has an empty default, so implement only
 * what you need.
 *
 * <p>Methods are called on the thread that called {@link ChatModel#stream}, in arrival order, never
 * concurrently. An exception thrown by a method aborts the stream and propagates to the caller of
 * {@code stream}. When the stream fails, no further method is called and {@code stream} throws a
 * {@link ModelException} whose {@link ModelException#partialMessage()} holds what arrived.
 *
 * <pre>{@code
 * model.stream(request, new StreamListener() {
 *   public void onText(String delta) { System.out.print(delta); }
 * });
 * }</pre>
 */
public interface StreamListener {
  /** A listener that ignores everything. */
  StreamListener NONE = new StreamListener() {};

  /** Text to append to the assistant message. */
  default void onText(String delta) {}

  /** Reasoning (thinking) text to append. */
  default void onReasoning(String delta) {}

  /** A piece of a tool call. */
  default void onToolCall(ToolCallDelta delta) {}

  /** Usage as reported so far (may be called more than once; the last call is final). */
  default void onUsage(Usage usage) {}

  /** The provider started compacting the context (OpenAI or Anthropic server-side compaction). */
  default void onCompacting() {}

  /** The complete response, also returned by {@code stream}. Called once, last. */
  default void onComplete(ChatResponse response) {}
}
