package dev.compactor.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ModelApi;
import dev.compactor.models.anthropic.AnthropicMessagesModel;
import dev.compactor.models.internal.HttpChatModel;
import dev.compactor.models.openai.OpenAiChatCompletionsModel;
import dev.compactor.models.openai.OpenAiResponsesModel;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChatModelsTest {
  private static final String OPENAI_KEY = "sk-openai-FACTORYKEY-000000000000";
  private static final Map<String, String> ENV =
      Map.of("OPENAI_API_KEY", OPENAI_KEY, "ANTHROPIC_API_KEY", "sk-ant-FACTORYKEY-0000000000");

  private static ChatModelOptions.Builder env(Map<String, String> env) {
    return ChatModelOptions.builder().env(env);
  }

  private static String baseUrl(ChatModel m) {
    return ((HttpChatModel) m).baseUrl();
  }

  @ParameterizedTest
  @CsvSource({
    "openai/gpt-5, openai, gpt-5, responses, https://api.openai.com/v1",
    "openai/gpt-4o-mini, openai, gpt-4o-mini, responses, https://api.openai.com/v1",
    "openai/gpt-3.5-turbo, openai, gpt-3.5-turbo, chat_completions, https://api.openai.com/v1",
    "openai/gpt-4o-search-preview, openai, gpt-4o-search-preview, chat_completions,"
        + " https://api.openai.com/v1",
    "anthropic/claude-sonnet-4-5, anthropic, claude-sonnet-4-5, anthropic_messages,"
        + " https://api.anthropic.com",
    "ollama/llama3.1:8b, ollama, llama3.1:8b, chat_completions, http://localhost:11434/v1",
    "vllm/Qwen/Qwen3-8B, vllm, Qwen/Qwen3-8B, chat_completions, http://localhost:8000/v1",
    "llamacpp/any, llamacpp, any, chat_completions, http://localhost:8080/v1",
    "LMStudio/qwen3, lmstudio, qwen3, chat_completions, http://localhost:1234/v1",
  })
  void create_picksClientApiAndBaseUrlByProvider(
      String spec, String provider, String model, String api, String url) {
    ChatModel m = ChatModels.create(spec, env(ENV).build());
    assertThat(m.provider()).isEqualTo(provider);
    assertThat(m.model()).isEqualTo(model);
    assertThat(m.api().wireName()).isEqualTo(api);
    assertThat(baseUrl(m)).isEqualTo(url);
  }

  @Test
  void create_returnsTheTypedClients() {
    assertThat(ChatModels.create("openai/gpt-5", env(ENV).build()))
        .isInstanceOf(OpenAiResponsesModel.class);
    assertThat(ChatModels.create("anthropic/claude-haiku-4-5", env(ENV).build()))
        .isInstanceOf(AnthropicMessagesModel.class);
    assertThat(ChatModels.create("ollama/llama3", env(Map.of()).build()))
        .isInstanceOf(OpenAiChatCompletionsModel.class);
  }

  @Test
  void apiOption_overridesTheDefault_butMustFitTheProvider() {
    assertThat(
            ChatModels.create("openai/gpt-5", env(ENV).api(ModelApi.CHAT_COMPLETIONS).build())
                .api())
        .isEqualTo(ModelApi.CHAT_COMPLETIONS);
    assertThat(ChatModels.create("vllm/m", env(Map.of()).api(ModelApi.RESPONSES).build()).api())
        .isEqualTo(ModelApi.RESPONSES);
    assertThatThrownBy(
            () ->
                ChatModels.create(
                    "anthropic/claude-sonnet-4-5", env(ENV).api(ModelApi.RESPONSES).build()))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("model API \"responses\" from ChatModelOptions.api");
    assertThatThrownBy(
            () ->
                ChatModels.create(
                    "openai/gpt-5", env(ENV).api(ModelApi.ANTHROPIC_MESSAGES).build()))
        .isInstanceOf(InvalidSettingException.class);
  }

  @Test
  void baseUrl_fromOptionsThenEnvironment_trailingSlashDropped() {
    ChatModel viaEnv =
        ChatModels.create(
            "openai/gpt-5",
            env(Map.of("OPENAI_API_KEY", OPENAI_KEY, "OPENAI_BASE_URL", "http://proxy:9000/v1/"))
                .build());
    assertThat(baseUrl(viaEnv)).isEqualTo("http://proxy:9000/v1");
    ChatModel viaOption =
        ChatModels.create(
            "anthropic/claude-sonnet-4-5",
            env(Map.of("ANTHROPIC_BASE_URL", "http://ignored:1"))
                .apiKey("k-explicit")
                .baseUrl("http://127.0.0.1:7/")
                .build());
    assertThat(baseUrl(viaOption)).isEqualTo("http://127.0.0.1:7");
  }

  @Test
  void openAiCompatible_needsABaseUrl() {
    assertThatThrownBy(() -> ChatModels.create("openai-compatible/qwen3", env(Map.of()).build()))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("openai-compatible base URL")
        .hasMessageContaining("--base-url");
    ChatModel m =
        ChatModels.create(
            "openai-compatible/org/model", env(Map.of()).baseUrl("http://gpu:8000/v1").build());
    assertThat(m.model()).isEqualTo("org/model");
    assertThat(m.api()).isEqualTo(ModelApi.CHAT_COMPLETIONS);
  }

  @Test
  void missingKey_forTheProvidersOwnEndpoint_failsNamingTheVariable() {
    assertThatThrownBy(() -> ChatModels.create("openai/gpt-5", env(Map.of()).build()))
        .isInstanceOf(CompactorException.class)
        .hasMessage("no API key for openai: set OPENAI_API_KEY or ChatModelOptions.apiKey");
    assertThatThrownBy(
            () -> ChatModels.create("anthropic/claude-sonnet-4-5", env(Map.of()).build()))
        .hasMessageContaining("ANTHROPIC_API_KEY");
    // a proxy at another URL may need no key
    assertThat(
            ChatModels.create(
                "openai/gpt-5", env(Map.of()).baseUrl("http://127.0.0.1:9/v1").build()))
        .isNotNull();
  }

  @Test
  void localServers_neverPickUpTheOpenAiKey() {
    OpenAiChatCompletionsModel m =
        (OpenAiChatCompletionsModel) ChatModels.create("ollama/llama3", env(ENV).build());
    assertThat(m.toString()).doesNotContain(OPENAI_KEY);
    assertThat(
            m.body(
                    dev.compactor.core.model.ChatRequest.of(
                        java.util.List.of(dev.compactor.core.message.Message.user("x"))),
                    false)
                .toString())
        .doesNotContain(OPENAI_KEY);
  }

  @Test
  void badNames_andBadUrls_areRejectedNamingTheValue() {
    assertThatThrownBy(() -> ChatModels.create("gpt-4o", env(ENV).build()))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("model \"gpt-4o\" from the model name must be provider/model");
    assertThatThrownBy(() -> ChatModels.create("openai/", env(ENV).build()))
        .isInstanceOf(InvalidSettingException.class);
    assertThatThrownBy(() -> ChatModels.create("gemini/pro", env(ENV).build()))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("model provider \"gemini\"")
        .hasMessageContaining("known: openai, anthropic, ollama");
    assertThatThrownBy(
            () ->
                ChatModels.create(
                    "openai/gpt-5",
                    env(Map.of("OPENAI_API_KEY", OPENAI_KEY, "OPENAI_BASE_URL", "ftp://x"))
                        .build()))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining(
            "openai base URL \"ftp://x\" from OPENAI_BASE_URL must be an http(s) URL");
  }

  @Test
  void keys_neverAppearInToString() {
    ChatModelOptions o = env(ENV).apiKey("k-very-secret-1234").build();
    assertThat(o.toString()).doesNotContain("k-very-secret-1234").contains("apiKey=***");
    ChatModel m = ChatModels.create("openai/gpt-5", o);
    assertThat(m.toString())
        .doesNotContain("k-very-secret-1234")
        .isEqualTo("OpenAiResponsesModel[openai/gpt-5 via responses at https://api.openai.com/v1]");
  }

  @Test
  void defaultOpenAiApi_isResponsesExceptForChatCompletionsOnlyModels() {
    assertThat(ChatModels.defaultOpenAiApi("o3")).isEqualTo(ModelApi.RESPONSES);
    assertThat(ChatModels.defaultOpenAiApi("gpt-4.1")).isEqualTo(ModelApi.RESPONSES);
    assertThat(ChatModels.defaultOpenAiApi("gpt-4o-audio-preview"))
        .isEqualTo(ModelApi.CHAT_COMPLETIONS);
  }

  @Test
  void openAiClients_refuseTheAnthropicProvider() {
    assertThatThrownBy(
            () -> new OpenAiChatCompletionsModel(ModelProvider.ANTHROPIC, "m", env(ENV).build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> new OpenAiResponsesModel(ModelProvider.ANTHROPIC, "m", env(ENV).build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ModelProvider.parse("gemini"))
        .hasMessageContaining("unknown model provider \"gemini\"");
  }
}
