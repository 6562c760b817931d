package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoredArchiveTest {
  @TempDir Path dir;

  @Test
  void save_writesContent_andNamesFileAndByteRangeOfTheMasterMessage() throws Exception {
    try (StoredConversation c = StoredConversation.open(dir.resolve("conv"))) {
      c.append(Message.builder(Role.USER).id("u1").content("hi").build());
      Message big = Message.builder(Role.USER).id("u2").content("long output ✓").build();
      c.append(big);
      String ref = new StoredArchive(c).save(big, "long output ✓");

      Matcher file = Pattern.compile("Full output saved to: (\\S+);").matcher(ref);
      assertThat(file.find()).as(ref).isTrue();
      assertThat(Files.readString(c.directory().resolve(file.group(1)))).isEqualTo("long output ✓");

      Matcher range = Pattern.compile("master message u2 \\(bytes (\\d+)-(\\d+)\\)").matcher(ref);
      assertThat(range.find()).as(ref).isTrue();
      byte[] all = Files.readAllBytes(c.conversationFile());
      String line =
          new String(
              all,
              Integer.parseInt(range.group(1)),
              Integer.parseInt(range.group(2)) - Integer.parseInt(range.group(1)),
              StandardCharsets.UTF_8);
      assertThat(line).contains("\"id\":\"u2\"").contains("long output ✓");
    }
  }
}
