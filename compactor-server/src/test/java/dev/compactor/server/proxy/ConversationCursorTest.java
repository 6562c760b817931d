package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.store.ListingCursor;
import org.junit.jupiter.api.Test;

class ConversationCursorTest {
  @Test
  void aCursorReadsBackAsTheInstantAndId() {
    ConversationCursor c = new ConversationCursor(1_767_225_600_123L, "conv_abc");
    assertThat(ConversationCursor.decode(c.encode())).isEqualTo(c);
  }

  @Test
  void aCursorNotNamingAProxyConversationIsRefused() {
    String chatLike = new ListingCursor("p1", 400, "x", "y").encode("12", "chat-1");
    String notANumber = new ListingCursor("p1", 400, "x", "y").encode("soon", "conv_1");
    String chatCursor = new ListingCursor("c1", 400, "x", "y").encode("12", "conv_1");
    for (String bad : new String[] {chatLike, notANumber, chatCursor, "nonsense"}) {
      assertThatThrownBy(() -> ConversationCursor.decode(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "cursor \""
                  + bad
                  + "\" is not a cursor of this conversation listing; pass the next_cursor of the"
                  + " previous page unchanged");
    }
  }
}
