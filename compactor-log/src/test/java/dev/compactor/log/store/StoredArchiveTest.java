package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoredArchiveTest {
  @TempDir Path dir;

  @Test
  void save_writesContent_andNamesFileAndByteRangeOfTheMasterMessage() throws Exception {
    try (StoredConversation c = StoredConversation.open(dir.resolve("conv").toAbsolutePath())) {
      c.append(Message.builder(Role.USER).id("u1").content("hi").build());
      Message big = Message.builder(Role.USER).id("u2").content("long output ✓").build();
      c.append(big);
      String ref = new StoredArchive(c).save(big, "long output ✓");

      Matcher file = Pattern.compile("Full output saved to: (\\S+);").matcher(ref);
      assertThat(file.find()).as(ref).isTrue();
      assertThat(file.group(1))
          .as("relative to the conversation directory, never an absolute local path")
          .startsWith("tool-outputs/compaction/")
          .doesNotContain(dir.toString());
      c.flushToolOutputs();
      assertThat(Files.readString(c.directory().resolve(file.group(1)))).isEqualTo("long output ✓");
      assertThat(new StoredArchive(c).savedFile(ref))
          .isEqualTo(c.directory().resolve(file.group(1)));

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

  /** A fixed clock: saves of equal content share one file. */
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);

  @Test
  void save_isWrittenAndFlushedBeforeTheViewThatNamesItIsCommitted() throws Exception {
    // each write waits a while on its own thread: the commit must wait for them
    ExecutorService slow = Executors.newSingleThreadExecutor();
    Executor delayed =
        task ->
            slow.execute(
                () -> {
                  sleep(150);
                  task.run();
                });
    try (StoredConversation c = openWriting(delayed)) {
      Message out = c.activeMessages().get(0);
      StoredArchive archive = new StoredArchive(c);
      String first = archive.save(out, "the middle of a long output");
      String second = archive.save(out, "another middle");
      assertThat(c.unsyncedToolOutputs())
          .as("a compaction's saves wait to be flushed together")
          .containsExactly(archive.savedFile(first), archive.savedFile(second));
      assertThat(archive.savedFile(second)).as("written in the background").doesNotExist();

      Message stub = Message.builder(Role.USER).id("u1~stub").content(first).build();
      c.switchTo(
          new View(c.nextViewId(), List.of(new ViewEntry.Synthesized(stub, List.of(out.id())))));
      assertThat(c.unsyncedToolOutputs()).as("flushed before the view was committed").isEmpty();
      assertThat(Files.readString(archive.savedFile(first)))
          .isEqualTo("the middle of a long output");
      assertThat(Files.readString(archive.savedFile(second))).isEqualTo("another middle");
    } finally {
      slow.shutdownNow();
    }
  }

  @Test
  void aWriteThatFails_failsTheCommit_andLeavesTheViewAsItWas_andALaterSaveWritesItAgain()
      throws Exception {
    List<Runnable> held = new ArrayList<>();
    Executor holding = held::add; // runs a write only when the test says so
    try (StoredConversation c = openWriting(holding)) {
      Message out = c.activeMessages().get(0);
      StoredArchive archive = new StoredArchive(c);
      String ref = archive.save(out, "the middle");
      Path saved = archive.savedFile(ref);
      // the directory is replaced by a file before the write runs
      Path category = saved.getParent();
      Files.delete(category);
      Files.writeString(category, "in the way");
      held.remove(0).run();

      String before = c.activeView().id();
      Message stub = Message.builder(Role.USER).id("u1~stub").content(ref).build();
      View next =
          new View(c.nextViewId(), List.of(new ViewEntry.Synthesized(stub, List.of(out.id()))));
      assertThatThrownBy(() -> c.switchTo(next))
          .isInstanceOf(LogIOException.class)
          .hasMessageContaining(saved.getFileName().toString());
      assertThat(c.activeView().id()).as("not committed").isEqualTo(before);
      assertThat(c.unsyncedToolOutputs()).as("the failed write is forgotten").isEmpty();

      Files.delete(category);
      String again = archive.save(out, "the middle");
      assertThat(archive.savedFile(again)).as("the same name, free again").isEqualTo(saved);
      held.remove(0).run();
      c.switchTo(next);
      assertThat(c.activeView().id()).isEqualTo(next.id());
      assertThat(Files.readString(saved)).isEqualTo("the middle");
    }
  }

  /**
   * The conversation of one message, "a long output", its tool outputs written by {@code writer}.
   */
  private StoredConversation openWriting(Executor writer) {
    StoredConversation c =
        StoredConversation.open(
            dir.resolve("conv").toAbsolutePath(), CLOCK, new PendingToolOutputs(writer));
    c.append(Message.builder(Role.USER).id("u1").content("a long output").build());
    return c;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void saveToolOutput_ofContentSavedUnflushed_flushesThatFile_andCloseFlushesTheRest()
      throws Exception {
    try (StoredConversation c =
        StoredConversation.open(dir.resolve("conv").toAbsolutePath(), CLOCK)) {
      Message out = Message.builder(Role.USER).id("u1").content("output").build();
      c.append(out);
      StoredArchive archive = new StoredArchive(c);
      Path saved = archive.savedFile(archive.save(out, "same content"));
      Path other = archive.savedFile(archive.save(out, "other content"));
      assertThat(c.saveToolOutput("same content", StoredArchive.CATEGORY)).isEqualTo(saved);
      assertThat(c.unsyncedToolOutputs()).as("durable on return").containsExactly(other);
      c.close();
      assertThat(c.unsyncedToolOutputs()).isEmpty();
      assertThat(Files.readString(other)).isEqualTo("other content");
    }
  }
}
