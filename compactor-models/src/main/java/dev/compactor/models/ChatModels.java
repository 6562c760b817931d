package dev.compactor.models;

import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ModelApi;
import dev.compactor.models.anthropic.AnthropicMessagesModel;
import dev.compactor.models.openai.OpenAiChatCompletionsModel;
import dev.compactor.models.openai.OpenAiResponsesModel;
import java.util.List;
import java.util.Locale;

/**
 * Creates {@link ChatModel}s from {@code provider/model} names.
 *
 * <table>
 *   <caption>Providers</caption>
 *   <tr><th>name</th><th>client</th><th>API</th></tr>
 *   <tr><td>{@code openai/…}</td><td>{@link OpenAiResponsesModel} or {@link
 *       OpenAiChatCompletionsModel}</td><td>see below</td></tr>
 *   <tr><td>{@code anthropic/…}</td><td>{@link AnthropicMessagesModel}</td>
 *       <td>{@code anthropic_messages}</td></tr>
 *   <tr><td>{@code ollama/…}, {@code vllm/…}, {@code llamacpp/…}, {@code lmstudio/…}</td>
 *       <td>{@link OpenAiChatCompletionsModel} at the server's default local URL</td>
 *       <td>{@code chat_completions}</td></tr>
 *   <tr><td>{@code openai-compatible/…}</td><td>{@link OpenAiChatCompletionsModel} at {@link
 *       ChatModelOptions#baseUrl()} ({@code --base-url}, required)</td>
 *       <td>{@code chat_completions}</td></tr>
 * </table>
 *
 * <p><b>Which API for {@code openai/…}.</b> {@link ChatModelOptions#api()} decides when set.
 * Otherwise the Responses API, which every current OpenAI chat model supports and which alone
 * offers server-side compaction ({@link ResponsesCompaction}) — except for models only Chat
 * Completions serves: names containing {@code gpt-3.5}, {@code -audio-} or {@code -search-} (see
 * {@link #defaultOpenAiApi}). OpenAI-compatible servers default to Chat Completions, the API they
 * all implement; {@code api = RESPONSES} selects a server's {@code /responses} endpoint. {@link
 * ChatModel#api()} tells which API a client speaks (the chat task's {@code _gpt_chat_details.api}).
 *
 * <p>Everything after the first {@code /} is the model name as the server knows it ({@code
 * openai-compatible/Qwen/Qwen3-8B} → {@code Qwen/Qwen3-8B}). Thread-safe (stateless).
 *
 * <pre>{@code
 * ChatModel m = ChatModels.create("ollama/llama3.1:8b", ChatModelOptions.defaults());
 * ChatModel c = ChatModels.create("openai-compatible/qwen3",
 *     ChatModelOptions.builder().baseUrl("http://gpu-box:8000/v1").build());
 * }</pre>
 */
public final class ChatModels {
  private ChatModels() {}

  private static final List<String> CHAT_COMPLETIONS_ONLY =
      List.of("gpt-3.5", "-audio-", "-search-");

  /** {@link #create(String, ChatModelOptions)} with {@link ChatModelOptions#defaults()}. */
  public static ChatModel create(String spec) {
    return create(spec, ChatModelOptions.defaults());
  }

  /**
   * A client for {@code provider/model}.
   *
   * @param spec {@code provider/model}, e.g. {@code anthropic/claude-sonnet-4-5}
   * @throws InvalidSettingException when the name has no provider or model, the provider is
   *     unknown, the API does not fit the provider, or the base URL is bad or missing
   * @throws dev.compactor.core.CompactorException when OpenAI or Anthropic has no API key
   */
  public static ChatModel create(String spec, ChatModelOptions options) {
    String s = spec == null ? "" : spec.strip();
    int slash = s.indexOf('/');
    if (slash <= 0 || slash == s.length() - 1) {
      throw new InvalidSettingException(
          "model",
          spec,
          "the model name",
          "must be provider/model, e.g. openai/gpt-4o or anthropic/claude-sonnet-4-5");
    }
    String providerId = s.substring(0, slash);
    String model = s.substring(slash + 1).strip();
    ModelProvider provider;
    try {
      provider = ModelProvider.parse(providerId);
    } catch (IllegalArgumentException e) {
      throw new InvalidSettingException(
          "model provider",
          providerId,
          "model name \"" + spec + "\"",
          "is unknown: " + e.getMessage());
    }
    ModelApi api = options.api();
    if (provider == ModelProvider.ANTHROPIC) {
      if (api != null && api != ModelApi.ANTHROPIC_MESSAGES) {
        throw wrongApi(api, spec);
      }
      return new AnthropicMessagesModel(model, options);
    }
    if (api == null) {
      api = provider == ModelProvider.OPENAI ? defaultOpenAiApi(model) : ModelApi.CHAT_COMPLETIONS;
    }
    return switch (api) {
      case RESPONSES -> new OpenAiResponsesModel(provider, model, options);
      case CHAT_COMPLETIONS -> new OpenAiChatCompletionsModel(provider, model, options);
      case ANTHROPIC_MESSAGES -> throw wrongApi(api, spec);
    };
  }

  /**
   * The API {@code openai/<model>} uses by default: Chat Completions for models only it serves
   * (names containing {@code gpt-3.5}, {@code -audio-}, {@code -search-}), else Responses.
   */
  public static ModelApi defaultOpenAiApi(String model) {
    String m = model.toLowerCase(Locale.ROOT);
    for (String marker : CHAT_COMPLETIONS_ONLY) {
      if (m.contains(marker)) {
        return ModelApi.CHAT_COMPLETIONS;
      }
    }
    return ModelApi.RESPONSES;
  }

  private static InvalidSettingException wrongApi(ModelApi api, String spec) {
    return new InvalidSettingException(
        "model API",
        api.wireName(),
        "ChatModelOptions.api",
        "does not fit "
            + spec
            + " (anthropic models use anthropic_messages; others responses or"
            + " chat_completions)");
  }
}
