package dev.compactor.models.internal;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatResponse;

/**
 * The state of one streamed attempt: consumes events, knows what it delivered. A new session is
 * made per attempt, so a retried stream starts clean. Not thread-safe.
 */
public interface StreamSession {
  /**
   * Handles one event.
   *
   * @return false when the stream is complete and reading should stop
   * @throws dev.compactor.core.model.ModelException for an error event or a malformed one
   */
  boolean onEvent(SseEvent event);

  /**
   * The stream ended (end of body) before {@link #onEvent} returned false. Throws when the response
   * is incomplete; returns normally when what arrived is a whole response.
   */
  void onEnd();

  /** What arrived so far as an assistant message, or null when nothing did. */
  Message partial();

  /** Whether anything reached the caller's listener (then the attempt is not retried). */
  boolean delivered();

  /** The whole response, once the stream completed. */
  ChatResponse response();
}
