package dev.compactor.core.model;

/**
 * Why the model stopped, normalised over providers. The provider's own value is kept beside it as
 * {@link ChatResponse#rawFinishReason()}.
 */
public enum FinishReason {
  /** A natural end or a stop sequence ({@code stop}, {@code end_turn}, {@code completed}). */
  STOP,
  /**
   * The output limit was reached ({@code length}, {@code max_tokens}, {@code max_output_tokens}).
   */
  LENGTH,
  /** The model asked for tool calls ({@code tool_calls}, {@code tool_use}). */
  TOOL_CALLS,
  /** Output withheld by a filter or refused ({@code content_filter}, {@code refusal}). */
  CONTENT_FILTER,
  /**
   * Generation stopped because input plus output reached the context window (Anthropic {@code
   * model_context_window_exceeded}). The reply is returned, possibly truncated; the next request
   * will not fit without compaction.
   */
  CONTEXT_WINDOW_EXCEEDED,
  /**
   * The provider compacted the context and paused before answering (Anthropic {@code compaction}
   * with {@code pause_after_compaction}); send the reply back to continue.
   */
  COMPACTION,
  /** Anything else, or no reason reported; see the raw value. */
  OTHER
}
