package dev.compactor.chat;

import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;

/**
 * Makes a chat's model call. The seam where overflow recovery wraps the call: a recovering caller
 * catches {@link dev.compactor.core.model.ContextOverflowException}, retries on a smaller prepared
 * input and reports how many retries it took. The chat keeps every message either way: the caller
 * only shapes what is sent, never what is stored.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface ModelCaller {
  /**
   * Sends the request.
   *
   * @throws dev.compactor.core.model.ContextOverflowException when the prompt does not fit (and
   *     recovery, if any, gave up)
   * @throws dev.compactor.core.model.ModelException when the call fails otherwise
   */
  ModelCallResult call(ChatModel model, ChatRequest request);

  /** Sends the request once, as is: a context overflow fails the call. */
  static ModelCaller direct() {
    return (model, request) -> new ModelCallResult(model.chat(request), 0);
  }

  /**
   * What a model call returned.
   *
   * @param response the model's answer
   * @param overflowRetries how many smaller inputs were tried after context overflows (0: the first
   *     try fitted)
   */
  record ModelCallResult(ChatResponse response, int overflowRetries) {
    public ModelCallResult {
      java.util.Objects.requireNonNull(response, "response");
      if (overflowRetries < 0) {
        throw new IllegalArgumentException("overflowRetries must be >= 0, got " + overflowRetries);
      }
    }

    /** Whether overflow recovery was needed. */
    public boolean recovered() {
      return overflowRetries > 0;
    }
  }
}
