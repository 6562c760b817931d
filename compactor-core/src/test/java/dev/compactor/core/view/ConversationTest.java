package dev.compactor.core.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConversationTest {

  @Test
  void recover_returnsOriginals_afterTwoCompactions_onEveryView() {
    Conversation c = new InMemoryConversation(new InMemoryMasterLog());
    Message a = Message.user("a");
    Message b = Message.assistant("b");
    Message d = Message.user("d");
    c.append(a);
    c.append(b);
    c.append(d);

    Message stub = Message.system("stub of a+b");
    c.switchTo(
        new View(
            c.nextViewId(),
            List.of(
                new ViewEntry.Synthesized(stub, List.of(a.id(), b.id())),
                new ViewEntry.Ref(d.id()))));
    Message e = Message.assistant("e");
    c.append(e);
    Message checkpoint = Message.system("checkpoint");
    c.switchTo(
        new View(
            c.nextViewId(),
            List.of(
                new ViewEntry.Synthesized(checkpoint, List.of(a.id(), b.id(), d.id())),
                new ViewEntry.Ref(e.id()))));

    assertThat(c.activeView().id()).isEqualTo("compacted-002");
    assertThat(c.activeMessages()).containsExactly(checkpoint, e);
    assertThat(c.recover(stub.id())).containsExactly(a, b);
    assertThat(c.recover(checkpoint.id())).containsExactly(a, b, d);
    assertThat(c.recover(e.id())).containsExactly(e);
    assertThat(c.master().messages()).containsExactly(a, b, d, e);
    assertThat(c.views()).hasSize(3);
  }

  @Test
  void switchTo_rejectsUnknownReferences_andKeepsActiveView() {
    Conversation c = new InMemoryConversation(new InMemoryMasterLog(List.of(Message.user("a"))));
    View before = c.activeView();
    assertThatThrownBy(
            () -> c.switchTo(View.ofRefs("compacted-001", List.of(MessageId.of("nope")))))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("nope");
    assertThat(c.activeView()).isEqualTo(before);
  }

  @Test
  void recover_unknownId_failsNamingIt() {
    Conversation c = new InMemoryConversation(new InMemoryMasterLog());
    assertThatThrownBy(() -> c.recover(MessageId.of("ghost")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("ghost");
  }

  @Test
  void appendAll_appendsInOrderToMasterAndActiveView() {
    InMemoryConversation c = new InMemoryConversation(new InMemoryMasterLog());
    Message a = Message.user("a");
    c.append(a);
    c.switchTo(View.ofRefs(c.nextViewId(), List.of(a.id())));
    Message b = Message.assistant("b");
    Message d = Message.user("d");
    c.appendAll(List.of(b, d));
    assertThat(c.master().messages()).containsExactly(a, b, d);
    assertThat(c.activeView().id()).isEqualTo("compacted-001");
    assertThat(c.activeMessages()).containsExactly(a, b, d);
    assertThat(c.views()).hasSize(2);
  }

  @Test
  void appendAll_storedOrRepeatedId_throwsAndAppendsNothing() {
    InMemoryConversation c = new InMemoryConversation(new InMemoryMasterLog());
    Message a = Message.user("a");
    c.append(a);
    Message b = Message.assistant("b");
    assertThatThrownBy(() -> c.appendAll(List.of(b, a)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(a.id().value())
        .hasMessageContaining("already in the log");
    assertThatThrownBy(() -> c.appendAll(List.of(b, b)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("twice");
    assertThat(c.master().messages()).containsExactly(a);
    assertThat(c.activeMessages()).containsExactly(a);
  }
}
