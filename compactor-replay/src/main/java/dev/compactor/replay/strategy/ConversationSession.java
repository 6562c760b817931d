package dev.compactor.replay.strategy;

import dev.compactor.core.message.Message;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.replay.ReplaySession;
import java.util.ArrayList;
import java.util.List;

/**
 * A session over an {@link InMemoryConversation}: recorded messages go to the master log and the
 * active view; compactions switch views, as in a live conversation.
 */
abstract class ConversationSession implements ReplaySession {
  final InMemoryConversation conversation = new InMemoryConversation(new InMemoryMasterLog());

  @Override
  public void append(Message recorded) {
    conversation.append(recorded);
  }

  @Override
  public List<Message> view() {
    List<Message> active = conversation.activeMessages();
    List<Message> out = new ArrayList<>(active.size());
    for (Message m : active) {
      if (!m.uiOnly()) {
        out.add(m);
      }
    }
    return out;
  }
}
