package dev.compactor.models.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.StreamListener;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ModelProvider;
import dev.compactor.models.internal.HttpChatModel;
import dev.compactor.models.internal.StreamSession;
import java.util.Map;

/**
 * A client of OpenAI Chat Completions ({@code POST {base}/chat/completions}), for OpenAI itself and
 * any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio, …).
 *
 * <p><b>Request.</b> Messages map one to one: system, user, assistant (with {@code tool_calls};
 * {@code content: null} when it only calls tools), tool (with {@code tool_call_id}). Reasoning
 * blocks are not sent; {@code uiOnly} messages are skipped. Tools become {@code {"type":
 * "function","function":{name, description, parameters}}}. The output limit is sent as {@code
 * max_completion_tokens} to OpenAI and {@code max_tokens} to other servers (which may not know the
 * newer name). Streams ask for {@code stream_options.include_usage}. Provider compaction options
 * are rejected: Chat Completions has none.
 *
 * <p><b>Response.</b> Text, tool calls in order, reasoning of servers that return {@code
 * reasoning_content} or {@code reasoning}; usage {@code prompt_tokens} (minus {@code
 * prompt_tokens_details.cached_tokens}, which become {@code cacheRead}), {@code completion_tokens},
 * {@code completion_tokens_details.reasoning_tokens}. Errors are mapped by {@link
 * OpenAiErrorMapper}; retries follow the {@link dev.compactor.models.RetryPolicy}.
 *
 * <p>Immutable, thread-safe.
 *
 * <pre>{@code
 * var model = new OpenAiChatCompletionsModel(ModelProvider.OLLAMA, "llama3.1:8b",
 *     ChatModelOptions.defaults());
 * ChatResponse r = model.chat(ChatRequest.of(List.of(Message.user("Hi"))));
 * }</pre>
 */
public final class OpenAiChatCompletionsModel extends HttpChatModel {
  private final String maxTokensField;

  /**
   * A client of {@code provider}'s Chat Completions endpoint.
   *
   * @param provider any provider but {@link ModelProvider#ANTHROPIC}
   * @param model the default model name as the server knows it
   * @throws IllegalArgumentException for the Anthropic provider or a blank model
   * @throws dev.compactor.core.catalog.InvalidSettingException for a bad or missing base URL
   * @throws dev.compactor.core.CompactorException when OpenAI's own endpoint has no key
   */
  public OpenAiChatCompletionsModel(
      ModelProvider provider, String model, ChatModelOptions options) {
    super(
        notAnthropic(provider, "Chat Completions"),
        model,
        options,
        OpenAiErrorMapper::new,
        ModelApi.CHAT_COMPLETIONS);
    this.maxTokensField = provider == ModelProvider.OPENAI ? "max_completion_tokens" : "max_tokens";
  }

  @Override
  protected String path() {
    return "/chat/completions";
  }

  @Override
  protected ChatResponse response(JsonNode root, ChatRequest request, String model) {
    return ChatCompletionsWire.response(root, this, request, model);
  }

  @Override
  protected StreamSession session(ChatRequest request, String model, StreamListener listener) {
    return new ChatCompletionsStream(this, request, model, listener);
  }

  @Override
  protected ObjectNode body(ChatRequest request, String model, boolean stream) {
    return ChatCompletionsWire.request(request, model, stream, maxTokensField);
  }

  @Override
  protected Map<String, String> ownHeaders(ChatRequest request) {
    return bearerAuthorization();
  }
}
