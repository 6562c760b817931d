package dev.compactor.models.contract;

import dev.compactor.core.model.ModelApi;
import dev.compactor.testkit.model.ChatModelContract;
import dev.compactor.testkit.model.WireFormat;

/** The OpenAI Responses client keeps {@link ChatModelContract}. */
class OpenAiResponsesContractTest extends ChatModelsContract {
  OpenAiResponsesContractTest() {
    super(WireFormat.RESPONSES, "openai/test-model", ModelApi.RESPONSES);
  }
}
