package dev.compactor.models.contract;

import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ModelApi;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ChatModels;
import dev.compactor.models.RetryPolicy;
import dev.compactor.testkit.model.ChatModelContract;
import dev.compactor.testkit.model.WireFormat;
import java.time.Duration;
import java.util.Map;

/** The OpenAI Chat Completions client keeps {@link ChatModelContract}. */
class OpenAiChatCompletionsContractTest extends ChatModelContract {
  @Override
  protected WireFormat wireFormat() {
    return WireFormat.CHAT_COMPLETIONS;
  }

  @Override
  protected ChatModel client(String baseUrl) {
    ChatModelOptions options =
        ChatModelOptions.builder()
            .env(Map.of())
            .apiKey("sk-contract-test")
            .baseUrl(baseUrl)
            .api(ModelApi.CHAT_COMPLETIONS)
            .retryPolicy(RetryPolicy.none())
            .requestTimeout(Duration.ofSeconds(20))
            .build();
    return ChatModels.create("openai/test-model", options);
  }
}
