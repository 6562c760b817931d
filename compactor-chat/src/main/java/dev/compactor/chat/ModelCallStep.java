package dev.compactor.chat;

import dev.compactor.chat.base.CallUsage;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.chat.base.CompactionDetails.ProviderReport;
import dev.compactor.chat.internal.Reasons;
import dev.compactor.chat.settings.ProviderSettings;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.PriceTable;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ModelException;
import dev.compactor.models.ResponsesCompaction;
import java.time.Clock;

/**
 * The model call, for a call that goes to the model: provider compaction's {@code
 * compact_threshold} when the model speaks the Responses API, the call through the {@link
 * ModelCaller} (overflow recovery by default), the reply appended with a timestamp and an id of its
 * own, usage and cost. For a call that does not go to the model, only the provider report.
 */
record ModelCallStep(ModelCaller caller, PriceTable prices, ModelCatalog catalog, Clock clock) {

  void call(TaskCall call) {
    ProviderSettings p = call.settings.provider();
    if (!call.submits()) {
      if (p != null) {
        call.providerReport =
            ProviderReport.notCompacted(
                p.enabled(), p.enabled() ? Reasons.NOT_SUBMITTED : Reasons.DISABLED);
      }
      return;
    }
    ChatModel chatModel = call.chatModel;
    call.api = chatModel.api().wireName();
    ChatRequest.Builder rb =
        ChatRequest.builder()
            .messages(call.newHistory)
            .tools(call.request.tools())
            .maxOutputTokens(call.request.maxOutputTokens())
            .temperature(call.request.temperature());
    boolean providerAsked = providerCompaction(call, p, rb);
    ModelCaller.ModelCallResult result =
        send(call.key, call.model, chatModel, rb, call.newHistory.size());
    ChatResponse response = result.response();
    if (providerAsked) {
      call.providerReport =
          response.compaction().compacted()
              ? ProviderReport.didCompact()
              : ProviderReport.notCompacted(true, Reasons.PROVIDER_DID_NOT_COMPACT);
    }
    Message reply = response.message();
    if (reply.timestamp() == null) {
      reply = reply.toBuilder().timestamp(clock.instant()).build();
    }
    if (call.newHistory.stream().anyMatch(m -> m.id().equals(response.message().id()))) {
      reply = reply.withId(MessageId.random());
    }
    call.newHistory.add(reply);
    call.reply = reply;
    Usage u = response.usage();
    call.usage =
        new CallUsage(
            call.model,
            u == null ? new Usage(0, 0, 0, 0, 0) : u,
            u == null ? null : prices.cost(call.model, u).orElse(null));
    call.lastPrompt = u == null ? null : u.totalInput();
    call.lastCompletion = u == null ? null : u.output();
    call.interactions++;
    call.overflowRetries = result.overflowRetries();
  }

  /** Asks for provider compaction when it applies; reports why not otherwise. */
  private boolean providerCompaction(TaskCall call, ProviderSettings p, ChatRequest.Builder rb) {
    if (p == null) {
      return false;
    }
    if (!p.enabled()) {
      call.providerReport = ProviderReport.notCompacted(false, Reasons.DISABLED);
      return false;
    }
    if (call.chatModel.api() != ModelApi.RESPONSES) {
      call.providerReport = ProviderReport.notCompacted(true, Reasons.NOT_RESPONSES_API);
      return false;
    }
    rb.extension(
        new ResponsesCompaction(p.thresholdFor(catalog.lookup(call.model).contextWindow())));
    return true;
  }

  private ModelCaller.ModelCallResult send(
      ChatKey key, String model, ChatModel chatModel, ChatRequest.Builder request, int messages) {
    ChatRequest built;
    try {
      built = request.build();
    } catch (IllegalArgumentException e) {
      throw new ChatTaskException(Code.INVALID_REQUEST, e.getMessage(), e);
    }
    try {
      return caller.call(chatModel, built);
    } catch (ContextOverflowException e) {
      throw new ChatTaskException(
          Code.CONTEXT_OVERFLOW,
          "the "
              + messages
              + " messages of chat "
              + key
              + " do not fit the context window of "
              + model
              + counts(e)
              + "; nothing was stored (enable summary compaction, or replace the history)",
          e);
    } catch (ModelException e) {
      throw new ChatTaskException(
          Code.MODEL_ERROR,
          "model call to " + model + " failed: " + e.getMessage() + "; nothing was stored",
          e);
    } catch (IllegalArgumentException e) {
      throw new ChatTaskException(
          Code.INVALID_REQUEST,
          "model " + model + " cannot take this request: " + e.getMessage(),
          e);
    }
  }

  /** {@code " (prompt N tokens, window W)"}, or the part of it the provider said, or nothing. */
  private static String counts(ContextOverflowException e) {
    return (e.promptTokens().isPresent()
            ? " (prompt " + e.promptTokens().getAsLong() + " tokens"
            : "")
        + (e.contextWindow().isPresent()
            ? (e.promptTokens().isPresent() ? ", " : " (")
                + "window "
                + e.contextWindow().getAsLong()
                + ")"
            : e.promptTokens().isPresent() ? ")" : "");
  }
}
