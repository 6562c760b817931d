package dev.compactor.models.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.StreamListener;
import dev.compactor.models.AnthropicContextManagement;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ModelProvider;
import dev.compactor.models.internal.HttpChatModel;
import dev.compactor.models.internal.StreamSession;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A client of the Anthropic Messages API ({@code POST {base}/v1/messages}).
 *
 * <p><b>Request.</b> System messages, wherever they are, are joined (blank line between) into the
 * top-level {@code system}. Other messages become turns of content blocks, consecutive turns of the
 * same role merged: user text → {@code text}; tool results → {@code tool_result} blocks in a user
 * turn (placed first in that turn, as the API requires); assistant → its Anthropic compaction
 * blocks (carried from an earlier response), {@code thinking} blocks with their signatures and
 * {@code redacted_thinking} blocks exactly as received (other reasoning, e.g. from OpenAI, is not
 * sent), {@code text}, then {@code tool_use} blocks with the arguments parsed as the {@code input}
 * object. A conversation that does not start with a user turn gets a leading user turn {@value
 * #LEADING_USER_TEXT}. {@code max_tokens} (required by the API) is the request's output limit, else
 * the smaller of the catalog's output limit for the model and {@value #DEFAULT_MAX_TOKENS}.
 * Headers: {@code x-api-key}, {@code anthropic-version: 2023-06-01}, and {@code anthropic-beta}
 * with {@code context-management-2025-06-27} and/or {@code compact-2026-01-12} when the request has
 * {@link dev.compactor.models.AnthropicContextManagement} (a request extension, sent as {@code
 * context_management.edits}). OpenAI's {@link dev.compactor.models.ResponsesCompaction} is
 * rejected, as is any other extension.
 *
 * <p><b>Response.</b> Text blocks joined, thinking blocks with signatures, tool calls, compaction
 * blocks (in {@link ChatResponse#compaction()} and on the message, so they go back on the next
 * request), {@code context_management.applied_edits}; usage {@code input_tokens}, {@code
 * cache_read_input_tokens} → cacheRead, {@code cache_creation_input_tokens} → cacheWrite, {@code
 * output_tokens}, and the cost of a compaction step from {@code usage.iterations}. Stop reasons
 * {@code model_context_window_exceeded} and {@code compaction} are returned as {@link
 * dev.compactor.core.model.FinishReason#CONTEXT_WINDOW_EXCEEDED} and {@link
 * dev.compactor.core.model.FinishReason#COMPACTION}. Errors are mapped by {@link
 * AnthropicErrorMapper}.
 *
 * <p>Immutable, thread-safe.
 *
 * <pre>{@code
 * var model = new AnthropicMessagesModel("claude-sonnet-4-5", ChatModelOptions.defaults());
 * ChatResponse r = model.chat(ChatRequest.of(history));
 * }</pre>
 */
public final class AnthropicMessagesModel extends HttpChatModel {
  /** API version header value. */
  public static final String API_VERSION = "2023-06-01";

  /** Text of the user turn put first when a conversation does not start with a user message. */
  public static final String LEADING_USER_TEXT = "(conversation start)";

  /** Upper bound of the default {@code max_tokens}. */
  public static final int DEFAULT_MAX_TOKENS = 8192;

  private final int defaultMaxTokens;

  /**
   * @param model the default model, e.g. {@code claude-sonnet-4-5}
   * @throws dev.compactor.core.catalog.InvalidSettingException for a bad base URL
   * @throws dev.compactor.core.CompactorException when Anthropic's own endpoint has no key
   */
  public AnthropicMessagesModel(String model, ChatModelOptions options) {
    super(
        ModelProvider.ANTHROPIC,
        model,
        options,
        (p, secrets) -> new AnthropicErrorMapper(secrets),
        ModelApi.ANTHROPIC_MESSAGES);
    this.defaultMaxTokens = defaultMaxTokens(model);
  }

  private static int defaultMaxTokens(String model) {
    int catalog =
        ModelCatalog.builtIn()
            .find("anthropic/" + model.strip())
            .map(m -> m.maxOutputTokens())
            .orElse(DEFAULT_MAX_TOKENS);
    return catalog > 0 ? Math.min(catalog, DEFAULT_MAX_TOKENS) : DEFAULT_MAX_TOKENS;
  }

  @Override
  protected String path() {
    return "/v1/messages";
  }

  @Override
  protected ChatResponse response(JsonNode root, ChatRequest request, String model) {
    return AnthropicWire.response(root, this, request, model);
  }

  @Override
  protected StreamSession session(ChatRequest request, String model, StreamListener listener) {
    return new AnthropicStream(this, request, model, listener);
  }

  @Override
  protected ObjectNode body(ChatRequest request, String model, boolean stream) {
    int maxTokens =
        request.maxOutputTokens() != null
            ? request.maxOutputTokens()
            : model.equals(model()) ? defaultMaxTokens : defaultMaxTokens(model);
    return AnthropicWire.request(request, model, maxTokens, stream);
  }

  @Override
  protected Map<String, String> ownHeaders(ChatRequest request) {
    Map<String, String> h = new LinkedHashMap<>();
    if (apiKey() != null) {
      h.put("x-api-key", apiKey());
    }
    h.put("anthropic-version", API_VERSION);
    request
        .extension(AnthropicContextManagement.class)
        .ifPresent(cm -> h.put("anthropic-beta", String.join(",", cm.betas())));
    return h;
  }
}
