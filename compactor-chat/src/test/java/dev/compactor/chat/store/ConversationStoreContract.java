package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.Compactor;
import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ConversationStore} does, on SQLite and PostgreSQL: a conversation read again (a
 * restarted process) has the same log, views, active view, journal and system message; writes of a
 * stale instance are refused without storing anything.
 */
abstract class ConversationStoreContract {
  private ConversationStore store;

  /** A store on the test's database; each call opens a new one on the same data. */
  protected abstract ConversationStore openStore();

  protected ConversationStore store() {
    if (store == null) {
      store = openStore();
    }
    return store;
  }

  /** Closes the store, as a process that stops would. */
  protected void restart() {
    if (store != null) {
      store.close();
      store = null;
    }
  }

  @AfterEach
  void closeStore() {
    restart();
  }

  private static Compactor compactor() {
    return Compactor.forModel("openai/gpt-4o-mini")
        .contextWindow(16_000)
        .maxOutputTokens(1000)
        .budget("2000")
        .reminder(false)
        .build();
  }

  /** Turns of a tool-using agent: question, call, a large result, answer. */
  private static void turns(Compactor.Session s, DatabaseConversation c, int from, int to) {
    for (int i = from; i < to; i++) {
      s.append(Message.user("look up key k" + i));
      s.append(
          Message.assistant(
              "", List.of(new ToolCall("call_" + i, "lookup", "{\"key\":\"k" + i + "\"}"))));
      s.append(
          Message.toolResult("call_" + i, "report k" + i + ": " + "a row of values; ".repeat(80)));
      s.append(Message.assistant("Done with k" + i + "."));
      if (s.afterTurn() instanceof CompactionOutcome.Compacted done) {
        c.compacted(done.report());
      }
    }
  }

  @Test
  void aConversationReadAgainContinuesWhereItStopped() {
    DatabaseConversation c = store().conversation("agent/1 with spaces");
    c.systemMessage(Message.system("You are terse."));
    Compactor.Session s = compactor().session(c);
    turns(s, c, 0, 12);
    assertThat(c.views()).hasSizeGreaterThan(1);
    assertThat(c.journal()).isNotEmpty();
    List<Message> master = c.master().messages();
    List<View> views = c.views();
    List<Message> active = c.activeMessages();

    restart();
    DatabaseConversation again = store().conversation("agent/1 with spaces");
    assertThat(again.master().messages()).isEqualTo(master);
    assertThat(again.views()).isEqualTo(views);
    assertThat(again.activeMessages()).isEqualTo(active);
    assertThat(again.journal()).isEqualTo(c.journal());
    assertThat(again.systemMessage()).map(Message::content).contains("You are terse.");
    // every original is recoverable behind the stubs of the restored view
    for (ViewEntry e : again.activeView().entries()) {
      if (e instanceof ViewEntry.Synthesized syn) {
        assertThat(again.recover(syn.message().id()))
            .containsExactlyElementsOf(
                syn.covers().stream().map(id -> master.get(indexOf(master, id))).toList());
      }
    }
    // and the session goes on from the restored view
    Compactor.Session s2 = compactor().session(again);
    turns(s2, again, 12, 20);
    restart();
    DatabaseConversation third = store().conversation("agent/1 with spaces");
    assertThat(third.master().messages().stream().filter(m -> !m.uiOnly())).hasSize(80);
    assertThat(third.activeMessages()).isEqualTo(again.activeMessages());
    assertThat(store().ids()).containsExactly("agent/1 with spaces");
  }

  private static int indexOf(List<Message> messages, MessageId id) {
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).id().equals(id)) {
        return i;
      }
    }
    throw new AssertionError("no message " + id);
  }

  @Test
  void anUnknownConversationIsEmptyAndNotStoredUntilItChanges() {
    DatabaseConversation c = store().conversation("new");
    assertThat(c.master().size()).isZero();
    assertThat(c.activeMessages()).isEmpty();
    assertThat(c.systemMessage()).isEmpty();
    assertThat(store().ids()).isEmpty();
    c.append(Message.user("hi"));
    assertThat(store().ids()).containsExactly("new");
  }

  @Test
  void aStaleInstanceCannotWriteAndStoresNothing() {
    DatabaseConversation first = store().conversation("shared");
    first.append(Message.user("one"));
    DatabaseConversation second = store().conversation("shared");
    second.append(Message.user("two"));
    Message three = Message.user("three");
    assertThatThrownBy(() -> first.append(three))
        .isInstanceOf(ConversationConflictException.class)
        .hasMessageContaining("reopen");
    assertThat(first.master().size()).isEqualTo(1);
    assertThat(store().conversation("shared").master().messages())
        .extracting(Message::content)
        .containsExactly("one", "two");
    // a view switch of the stale instance is refused and leaves it as it was
    View before = first.activeView();
    second.switchTo(View.ofRefs(second.nextViewId(), List.of()));
    assertThatThrownBy(() -> first.switchTo(View.ofRefs(first.nextViewId(), List.of())))
        .isInstanceOf(ConversationConflictException.class);
    assertThat(first.activeView()).isEqualTo(before);
  }

  @Test
  void aDeletedConversationIsGoneAndItsOpenInstanceCannotWrite() {
    DatabaseConversation c = store().conversation("gone");
    c.append(Message.user("hello"));
    c.switchTo(View.ofRefs(c.nextViewId(), List.of()));
    assertThat(store().delete("gone")).isTrue();
    assertThat(store().delete("gone")).isFalse();
    assertThat(store().ids()).isEmpty();
    assertThat(store().conversation("gone").master().size()).isZero();
    assertThatThrownBy(() -> c.append(Message.user("again")))
        .isInstanceOf(ConversationConflictException.class);
  }

  @Test
  void invalidInputIsRefusedNamingIt() {
    DatabaseConversation c = store().conversation("x");
    Message m = Message.user("once");
    c.append(m);
    assertThatThrownBy(() -> c.append(m))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(m.id().value());
    assertThatThrownBy(
            () -> c.switchTo(View.ofRefs(c.nextViewId(), List.of(new MessageId("not-in-the-log")))))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("not-in-the-log");
    assertThat(store().conversation("x").views()).hasSize(1);
    assertThatThrownBy(() -> store().conversation(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> c.master().append(Message.user("sideways")))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
