package dev.compactor.models.contract;

import dev.compactor.core.model.ChatModel;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ChatModels;
import dev.compactor.models.RetryPolicy;
import dev.compactor.testkit.model.ChatModelContract;
import dev.compactor.testkit.model.WireFormat;
import java.time.Duration;
import java.util.Map;

/** The Anthropic Messages client keeps {@link ChatModelContract}. */
class AnthropicMessagesContractTest extends ChatModelContract {
  @Override
  protected WireFormat wireFormat() {
    return WireFormat.ANTHROPIC_MESSAGES;
  }

  @Override
  protected ChatModel client(String baseUrl) {
    ChatModelOptions options =
        ChatModelOptions.builder()
            .env(Map.of())
            .apiKey("sk-contract-test")
            .baseUrl(baseUrl)
            .retryPolicy(RetryPolicy.none())
            .requestTimeout(Duration.ofSeconds(20))
            .build();
    return ChatModels.create("anthropic/test-model", options);
  }
}
