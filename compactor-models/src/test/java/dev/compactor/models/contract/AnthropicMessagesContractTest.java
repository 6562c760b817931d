package dev.compactor.models.contract;

import dev.compactor.testkit.model.ChatModelContract;
import dev.compactor.testkit.model.WireFormat;

/** The Anthropic Messages client keeps {@link ChatModelContract}. */
class AnthropicMessagesContractTest extends ChatModelsContract {
  AnthropicMessagesContractTest() {
    super(WireFormat.ANTHROPIC_MESSAGES, "anthropic/test-model", null);
  }
}
