package dev.compactor.chat;

import dev.compactor.core.Bounds;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.recovery.OverflowRecovery;
import dev.compactor.core.recovery.RecoveryResult;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import java.time.Clock;

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

  /**
   * Sends the request through overflow recovery ({@link OverflowRecovery}): when the provider
   * answers that the context is too long (and nothing has streamed), the prepared input is trimmed,
   * then old whole steps are replaced by a recoverable marker, each retry strictly smaller, at most
   * eight retries. Only what is sent changes; the chat's stored messages are untouched. The default
   * of {@link ChatTaskService}.
   */
  static ModelCaller recovering() {
    OverflowRecovery recovery = new OverflowRecovery(Clock.systemUTC(), CompactionListener.NONE);
    return (model, request) -> {
      String name = request.model() != null ? request.model() : model.model();
      InMemoryConversation prepared =
          new InMemoryConversation(new InMemoryMasterLog(request.messages()));
      PolicyContext ctx =
          PolicyContext.of(
              name,
              Long.MAX_VALUE / 4,
              CompressionConfig.builder().counter(TokenCounters.forModel(name)).build());
      RecoveryResult r = recovery.call(prepared, model, request, ctx);
      return new ModelCallResult(r.response(), r.report().retries());
    };
  }

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
      Bounds.atLeast(0, overflowRetries, "overflowRetries");
    }

    /** Whether overflow recovery was needed. */
    public boolean recovered() {
      return overflowRetries > 0;
    }
  }
}
