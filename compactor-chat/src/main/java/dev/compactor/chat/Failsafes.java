package dev.compactor.chat;

import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;

/**
 * The failsafes, before compaction and before any model call: {@code stop_on_high_messages} against
 * the history with the call's messages added (after a {@code set}, the new messages only), then,
 * for a call that goes to the model, {@code stop_on_high_interactions} against the chat's model
 * calls so far.
 */
final class Failsafes {
  private Failsafes() {}

  static void check(TaskCall call) {
    ChatTaskRequest req = call.request;
    int countWithCall = call.countWithCall();
    if (req.stopOnHighMessages() != null && countWithCall > req.stopOnHighMessages()) {
      throw new ChatTaskException(
          Code.FAILSAFE_MESSAGES,
          "stop_on_high_messages: chat "
              + call.key
              + " would hold "
              + countWithCall
              + " messages, more than the limit of "
              + req.stopOnHighMessages()
              + "; nothing was stored (raise the limit, summarize the chat, or replace its"
              + " history with message_operation \"set\")");
    }
    if (call.submits() && call.record.interactions() >= req.stopOnHighInteractions()) {
      throw new ChatTaskException(
          Code.FAILSAFE_INTERACTIONS,
          "stop_on_high_interactions: chat "
              + call.key
              + " has made "
              + call.record.interactions()
              + " model calls, the limit is "
              + req.stopOnHighInteractions()
              + "; nothing was stored (this counter is never reset)");
    }
  }
}
