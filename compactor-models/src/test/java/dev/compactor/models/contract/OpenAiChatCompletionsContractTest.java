package dev.compactor.models.contract;

import dev.compactor.core.model.ModelApi;
import dev.compactor.testkit.model.ChatModelContract;
import dev.compactor.testkit.model.WireFormat;

/** The OpenAI Chat Completions client keeps {@link ChatModelContract}. */
class OpenAiChatCompletionsContractTest extends ChatModelsContract {
  OpenAiChatCompletionsContractTest() {
    super(WireFormat.CHAT_COMPLETIONS, "openai/test-model", ModelApi.CHAT_COMPLETIONS);
  }
}
