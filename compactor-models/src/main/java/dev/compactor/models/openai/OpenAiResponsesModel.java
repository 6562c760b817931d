package dev.compactor.models.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.StreamListener;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ModelProvider;
import dev.compactor.models.ResponsesCompaction;
import dev.compactor.models.internal.HttpChatModel;
import dev.compactor.models.internal.StreamSession;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.usage.Usages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A client of the OpenAI Responses API ({@code POST {base}/responses}), stateless: every request
 * carries the whole conversation as input items ({@code previous_response_id} is not used).
 *
 * <p><b>Input.</b> Leading system messages become {@code instructions} (so server compaction, which
 * drops input items before its compaction item, never drops them); later system and user messages
 * become {@code {"role","content"}} items; an assistant message becomes its compaction items
 * (carried from an earlier response, see {@link ProviderCompaction}), an assistant text item and
 * one {@code function_call} item per tool call; a tool result becomes {@code function_call_output}.
 * Reasoning items are not sent back. A {@link ResponsesCompaction} extension is sent as {@code
 * context_management: [{"type":"compaction","compact_threshold":N}]}; any other extension is
 * rejected.
 *
 * <p><b>Output.</b> Message text, {@code function_call}s as tool calls, {@code reasoning} summaries
 * as reasoning blocks (the {@code encrypted_content}, when requested, as signature), {@code
 * compaction} items in {@link ChatResponse#compaction()} and on the message; usage {@code
 * input_tokens} (minus {@code input_tokens_details.cached_tokens} and {@code cache_write_tokens},
 * which become {@code cacheRead} / {@code cacheWrite}), {@code output_tokens}, {@code
 * output_tokens_details.reasoning_tokens}. A {@code failed} response, and an {@code error} or
 * {@code response.failed} stream event after HTTP 200, are mapped by {@link OpenAiErrorMapper}
 * (context overflow included).
 *
 * <p>{@link #compact} calls {@code POST {base}/responses/compact}.
 *
 * <p>Immutable, thread-safe.
 *
 * <pre>{@code
 * var model = new OpenAiResponsesModel(ModelProvider.OPENAI, "gpt-5", ChatModelOptions.defaults());
 * ChatResponse r = model.chat(ChatRequest.builder().messages(history)
 *     .extension(new ResponsesCompaction(200_000)).build());
 * history.add(r.message()); // carries any compaction item into the next request
 * }</pre>
 */
public final class OpenAiResponsesModel extends HttpChatModel {

  /**
   * A client of {@code provider}'s Responses endpoint (OpenAI, or a compatible server that has
   * one).
   *
   * @throws IllegalArgumentException for the Anthropic provider or a blank model
   * @throws dev.compactor.core.catalog.InvalidSettingException for a bad or missing base URL
   * @throws dev.compactor.core.CompactorException when OpenAI's own endpoint has no key
   */
  public OpenAiResponsesModel(ModelProvider provider, String model, ChatModelOptions options) {
    super(
        notAnthropic(provider, "the Responses API"),
        model,
        options,
        OpenAiErrorMapper::new,
        ModelApi.RESPONSES);
  }

  @Override
  protected String path() {
    return "/responses";
  }

  @Override
  protected ChatResponse response(JsonNode root, ChatRequest request, String model) {
    return ResponsesWire.response(root, this, request, model);
  }

  @Override
  protected StreamSession session(ChatRequest request, String model, StreamListener listener) {
    return new ResponsesStream(this, request, model, listener);
  }

  /**
   * Compacts the request's conversation with {@code POST {base}/responses/compact}: the body holds
   * {@code model}, {@code input} and {@code instructions} mapped as for {@link #chat}, plus the
   * request's options (e.g. {@code prompt_cache_key}); tools, output limit, temperature and
   * compaction threshold are not sent.
   *
   * @return the compacted conversation, ready to continue from
   * @throws dev.compactor.core.model.ModelException as {@link #chat} does
   */
  public CompactedContext compact(ChatRequest request) {
    String model = modelFor(request);
    checkExtensions(request, model);
    ObjectNode body = ResponsesWire.compactRequest(request, model);
    JsonNode root = postJson("/responses/compact", headers(bearerAuthorization()), body, model);
    if (root.path("error").isObject()) {
      throw errorMapper().fromStreamEvent(Json.write(root.get("error")), model, null);
    }
    String reported = Json.scalar(root, "model");
    List<Message> messages =
        ResponsesWire.messages(root.get("output"), provider(), reported != null ? reported : model);
    List<CompactionItem> items = new ArrayList<>();
    for (Message m : messages) {
      items.addAll(ProviderCompaction.itemsOf(m));
    }
    return new CompactedContext(
        Json.scalar(root, "id"), messages, items, Usages.responses(root.get("usage")));
  }

  @Override
  protected ObjectNode body(ChatRequest request, String model, boolean stream) {
    return ResponsesWire.request(request, model, stream);
  }

  @Override
  protected Map<String, String> ownHeaders(ChatRequest request) {
    return bearerAuthorization();
  }
}
