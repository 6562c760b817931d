package dev.compactor.chat;

import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.core.view.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Checks a call that goes to the model before anything is spent on it (a summary call included): it
 * names a model (or the chat has one), there is something to send, the client can be made, the
 * history with the call's messages is one the model accepts (every tool call answered, every tool
 * result answering a call), and it does not end in an assistant tool call still waiting for its
 * results.
 */
final class Submission {
  private final ModelResolver models;

  Submission(ModelResolver models) {
    this.models = models;
  }

  /** Sets {@link TaskCall#chatModel} for a submitted call; does nothing for another. */
  void check(TaskCall call) {
    if (!call.submits()) {
      return;
    }
    if (call.model == null) {
      throw new ChatTaskException(
          Code.INVALID_REQUEST,
          "model is required: chat " + call.key + " has no model yet (e.g. \"openai/gpt-5-mini\")");
    }
    if (call.countWithCall() == 0) {
      throw new ChatTaskException(
          Code.INVALID_REQUEST, "nothing to submit: chat " + call.key + " has no messages");
    }
    call.chatModel = models.create(call.model, "model");
    List<Message> toSend = new ArrayList<>(call.priorHistory());
    toSend.addAll(call.incoming);
    checkInvariants(call, toSend);
    checkNotEndingInACall(call, toSend);
  }

  /**
   * A history whose last message the model would see is an assistant tool call has nothing for the
   * model to answer: the call waits for its results. Refused before the model is called.
   */
  private static void checkNotEndingInACall(TaskCall call, List<Message> toSend) {
    Message last = null;
    for (Message m : toSend) {
      if (!m.uiOnly()) {
        last = m;
      }
    }
    if (last != null && last.role() == Role.ASSISTANT && !last.toolCalls().isEmpty()) {
      throw new ChatTaskException(
          Code.INVALID_REQUEST,
          "chat "
              + call.key
              + " cannot be sent to the model: its last message "
              + last.id()
              + " is an assistant tool call ("
              + last.toolCalls().stream().map(ToolCall::id).collect(Collectors.joining(", "))
              + ") without results (send the tool results with submit_to_model false, or in this"
              + " call, before submitting)");
    }
  }

  private static void checkInvariants(TaskCall call, List<Message> history) {
    for (Violation v : new ViewValidator().validate(history)) {
      if (v.kind() == Violation.Kind.TIMESTAMP_ORDER) {
        continue;
      }
      throw new ChatTaskException(
          Code.INVALID_REQUEST,
          "chat "
              + call.key
              + " cannot be sent to the model: "
              + v.detail()
              + " (send tool results with submit_to_model false before submitting)");
    }
  }
}
