package dev.compactor.log.store;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import java.util.List;

/** The compacted conversation the store tests open, write and read back. */
final class CompactedConversation {
  private CompactedConversation() {}

  /**
   * Appends user {@code a}, assistant {@code b} and user {@code d}, switches to a view in which a
   * system stub {@code s1} stands for {@code a} and {@code b} and {@code d} follows, then appends
   * user {@code e} after the compaction.
   */
  static void write(StoredConversation c) {
    Message a = user("a", "first");
    Message b = Message.assistant("second").withId(MessageId.of("b"));
    Message d = user("d", "third");
    c.append(a);
    c.append(b);
    c.append(d);
    Message stub = Message.system("stub of a+b").withId(MessageId.of("s1"));
    c.switchTo(
        new View(
            c.nextViewId(),
            List.of(
                new ViewEntry.Synthesized(stub, List.of(a.id(), b.id())),
                new ViewEntry.Ref(d.id()))));
    c.append(user("e", "after compaction"));
  }

  private static Message user(String id, String text) {
    return Message.builder(Role.USER).id(id).content(text).build();
  }
}
