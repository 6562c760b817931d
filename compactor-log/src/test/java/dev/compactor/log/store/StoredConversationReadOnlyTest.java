package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.view.View;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StoredConversation#openReadOnly}: read in place, nothing written, crashes described. */
class StoredConversationReadOnlyTest {
  @TempDir Path dir;

  private static Message user(String id, String text) {
    return Message.builder(Role.USER).id(id).content(text).build();
  }

  /** A conversation with a compacted view and one message appended after it. */
  private List<View> compacted() {
    try (StoredConversation c = StoredConversation.open(dir)) {
      CompactedConversation.write(c);
      c.settings().put("budget", "64000");
      return c.views();
    }
  }

  private Map<Path, String> snapshot() throws IOException {
    Map<Path, String> state = new TreeMap<>();
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        FileTime t = Files.getLastModifiedTime(p);
        String bytes =
            Files.isRegularFile(p)
                ? new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1)
                : "";
        state.put(p, t + " " + bytes);
      }
    }
    return state;
  }

  @Test
  void readsEveryViewInPlace_withoutALock_andChangesNothing() throws IOException {
    List<View> views = compacted();
    Files.delete(dir.resolve(".lock"));
    Map<Path, String> before = snapshot();
    try (StoredConversation c = StoredConversation.openReadOnly(dir)) {
      assertThat(c.views()).isEqualTo(views);
      assertThat(c.activeMessages())
          .extracting(m -> m.id().value())
          .containsExactly("s1", "d", "e");
      assertThat(c.recover(MessageId.of("s1")))
          .extracting(Message::content)
          .containsExactly("first", "second");
      assertThat(c.settings().get("budget")).contains("64000");
      assertThat(c.readOnlyProblems()).isEmpty();
      assertThatThrownBy(() -> c.append(user("f", "x")))
          .isInstanceOf(CompactorException.class)
          .hasMessageContaining("read-only");
      assertThatThrownBy(() -> c.settings().put("k", "v")).hasMessageContaining("read-only");
      assertThatThrownBy(() -> c.saveToolOutput("out")).hasMessageContaining("read-only");
      assertThatThrownBy(() -> c.switchTo(new View(c.nextViewId(), List.of())))
          .hasMessageContaining("read-only");
    }
    assertThat(snapshot()).isEqualTo(before);
    // A writer may have it open at the same time: a read takes no lock.
    try (StoredConversation writer = StoredConversation.open(dir);
        StoredConversation reader = StoredConversation.openReadOnly(dir)) {
      writer.append(user("f", "while read"));
      assertThat(reader.activeMessages()).hasSize(3);
    }
  }

  @Test
  void aTornLastLine_andAMissingViewReference_areDescribed_andLeftAsTheyAre() throws IOException {
    compacted();
    // A crash after the master line of "f" was written, before its view reference; then a torn
    // line of the next message.
    Files.write(
        dir.resolve("conversation.jsonl"),
        (new dev.compactor.wire.json.MessageCodec().writeLine(user("f", "late"))
                + "\n{\"id\":\"g\",\"ro")
            .getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.APPEND);
    Files.write(
        dir.resolve("compaction.jsonl"),
        "{\"at\":".getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.APPEND);
    Files.delete(dir.resolve(".lock"));
    Map<Path, String> before = snapshot();
    try (StoredConversation c = StoredConversation.openReadOnly(dir)) {
      assertThat(c.activeMessages())
          .extracting(m -> m.id().value())
          .containsExactly("s1", "d", "e", "f");
      assertThat(c.readOnlyProblems())
          .hasSize(3)
          .anySatisfy(
              p ->
                  assertThat(p)
                      .startsWith(
                          "conversation.jsonl: its last line is incomplete (line 6, from byte "))
          .anySatisfy(
              p ->
                  assertThat(p)
                      .startsWith(
                          "views/compacted-001.jsonl: lacks the reference to the last 1 message(s)"))
          .anySatisfy(
              p -> assertThat(p).startsWith("compaction.jsonl: its last line is incomplete"));
    }
    assertThat(snapshot()).as("nothing repaired").isEqualTo(before);
    // A writing open repairs the same and reads the same messages.
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.activeMessages())
          .extracting(m -> m.id().value())
          .containsExactly("s1", "d", "e", "f");
      assertThat(c.readOnlyProblems()).isEmpty();
    }
  }

  @Test
  void notADirectory_isRefused() throws IOException {
    Path f = Files.writeString(dir.resolve("file"), "x");
    assertThatThrownBy(() -> StoredConversation.openReadOnly(f))
        .hasMessageContaining("is not a directory");
    assertThatThrownBy(() -> StoredConversation.openReadOnly(dir.resolve("missing")))
        .hasMessageContaining("is not a directory");
    assertThat(dir.resolve("missing")).doesNotExist();
  }
}
