package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConversationNamesTest {
  @Test
  void plainIdsAreTheirOwnNamesAndOthersAreSpelledInHex() {
    assertThat(ConversationNames.of("user-42")).isEqualTo("user-42");
    for (String id :
        new String[] {"..", ".", "../../etc", "a/b", "C:\\x", "id-5", "ünï", "a\nb", ""}) {
      String name = ConversationNames.of(id);
      assertThat(name).as(id).startsWith("id-").doesNotContain("/").doesNotContain("\\");
      assertThat(Path.of("/base").resolve(name).normalize().getParent())
          .isEqualTo(Path.of("/base"));
      assertThat(ConversationNames.idOf(name)).as(id).hasValue(id);
    }
  }

  @Test
  void longIdsStayWithinAFileNameAndDoNotCollide() {
    String a = "x".repeat(300) + "a";
    String b = "x".repeat(300) + "b";
    assertThat(ConversationNames.of(a).length()).isLessThan(255);
    assertThat(ConversationNames.of(a)).isNotEqualTo(ConversationNames.of(b));
    assertThat(ConversationNames.idOf(ConversationNames.of(a))).isEmpty();
    assertThat(ConversationNames.idOf(".hidden")).isEmpty();
  }
}
