package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ListingCursorTest {
  final ListingCursor codec = new ListingCursor("t1", 200, "test listing", "next value");

  private static String base64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  @Test
  void aCursorReadsBackAsItsPositionAndId() {
    String cursor = codec.encode("2026-01-02T03:04:05.006Z", "chat|with|bars");
    assertThat(cursor).doesNotContain("=", "+", "/");
    String read = codec.decode(cursor, (at, id) -> at + " " + id);
    assertThat(read).isEqualTo("2026-01-02T03:04:05.006Z chat|with|bars");
  }

  @Test
  void aCursorOfAnotherListingIsRefusedNamingItAndWhereTheNextOneIs() {
    String other = new ListingCursor("o1", 200, "other", "x").encode("1", "a");
    assertThatThrownBy(() -> codec.decode(other, (at, id) -> id))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cursor \""
                + other
                + "\" is not a cursor of this test listing; pass the next value of the previous"
                + " page unchanged");
  }

  @Test
  void textThatIsNoCursorIsRefused() {
    for (String bad :
        new String[] {
          "not base64!",
          base64("t1|only-two".getBytes(StandardCharsets.UTF_8)),
          base64(new byte[] {'t', '1', '|', '1', '|', (byte) 0xff, (byte) 0xfe}),
          "A".repeat(201)
        }) {
      assertThatThrownBy(() -> codec.decode(bad, (at, id) -> id))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not a cursor of this test listing");
    }
  }

  @Test
  void aPartTheListingDoesNotAcceptIsRefusedAsABadCursorShortened() {
    String cursor = codec.encode("yesterday", "x".repeat(60));
    assertThatThrownBy(() -> codec.decode(cursor, (at, id) -> Instant.parse(at)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("cursor \"" + cursor.substring(0, 40) + "…\" is not a cursor");
    assertThatThrownBy(() -> codec.decode(cursor, (at, id) -> Long.parseLong(at)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not a cursor of this test listing");
  }
}
