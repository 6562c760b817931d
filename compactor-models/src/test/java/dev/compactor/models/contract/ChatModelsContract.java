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

/**
 * {@link ChatModelContract} for a client made by {@link ChatModels#create}: a subclass names the
 * wire format, the model id and, where the provider speaks more than one, the API.
 */
abstract class ChatModelsContract extends ChatModelContract {
  private final WireFormat wireFormat;
  private final String model;
  private final ModelApi api;

  /**
   * @param wireFormat what the fake server speaks
   * @param model the {@code provider/model} id given to {@link ChatModels#create}
   * @param api the API to ask for, or {@code null} for the provider's default
   */
  ChatModelsContract(WireFormat wireFormat, String model, ModelApi api) {
    this.wireFormat = wireFormat;
    this.model = model;
    this.api = api;
  }

  @Override
  protected final WireFormat wireFormat() {
    return wireFormat;
  }

  @Override
  protected final ChatModel client(String baseUrl) {
    ChatModelOptions.Builder options =
        ChatModelOptions.builder()
            .env(Map.of())
            .apiKey("sk-contract-test")
            .baseUrl(baseUrl)
            .retryPolicy(RetryPolicy.none())
            .requestTimeout(Duration.ofSeconds(20));
    if (api != null) {
      options.api(api);
    }
    return ChatModels.create(model, options.build());
  }
}
