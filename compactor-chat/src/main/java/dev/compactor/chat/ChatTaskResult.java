package dev.compactor.chat;

import dev.compactor.chat.base.CallUsage;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.core.message.Message;
import java.util.Objects;

/**
 * What a chat task call returns.
 *
 * @param key the chat
 * @param reply the assistant's reply, or null when the call did not go to the model
 * @param usage the chat call's own usage and cost, or null when it did not go to the model
 * @param details {@code _gpt_chat_details}
 */
public record ChatTaskResult(ChatKey key, Message reply, CallUsage usage, ChatDetails details) {
  public ChatTaskResult {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(details, "details");
  }
}
