package dev.compactor.models.contract;

import dev.compactor.testkit.model.ChatModelContract;
import dev.compactor.testkit.model.WireFormat;

/** The client of an OpenAI-compatible server (Chat Completions) keeps {@link ChatModelContract}. */
class OpenAiCompatibleContractTest extends ChatModelsContract {
  OpenAiCompatibleContractTest() {
    super(WireFormat.CHAT_COMPLETIONS, "openai-compatible/test-model", null);
  }
}
