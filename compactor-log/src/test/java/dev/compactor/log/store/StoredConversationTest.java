package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.wire.json.MessageCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoredConversationTest {
  @TempDir Path dir;
  private final MessageCodec codec = new MessageCodec();

  private static Message user(String id, String text) {
    return Message.builder(Role.USER).id(id).content(text).build();
  }

  /**
   * A message that cannot be written: its extra field {@code usage} is a name the metadata itself
   * uses.
   */
  private static Message unwritable(String id) {
    return Message.builder(Role.USER)
        .id(id)
        .metadata(new MessageMetadata(null, null, null, null, Map.of("usage", 1)))
        .build();
  }

  private Path master() {
    return dir.resolve("conversation.jsonl");
  }

  private void appendRaw(Path file, byte[] bytes) throws IOException {
    Files.write(file, bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  private void appendRaw(Path file, String text) throws IOException {
    appendRaw(file, text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Opening the directory fails on a malformed file, the message naming {@code where} and {@code
   * what}.
   */
  private void assertOpenFails(String where, String what) {
    assertThatThrownBy(() -> StoredConversation.open(dir))
        .isInstanceOf(LogFormatException.class)
        .hasMessageContaining(where)
        .hasMessageContaining(what);
  }

  /** Appends the message "a", then makes a view that refers to it (views/compacted-001.jsonl). */
  private static void compactToA(StoredConversation c) {
    c.append(user("a", "1"));
    c.switchTo(View.ofRefs(c.nextViewId(), List.of(MessageId.of("a"))));
  }

  /**
   * Reopened, the conversation's active messages are exactly {@code ids}, and the file of the view
   * compacted-001 refers to exactly them.
   */
  private void assertReopenedWithRefs(String... ids) throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.activeMessages()).extracting(m -> m.id().value()).containsExactly(ids);
    }
    assertThat(Files.readAllLines(dir.resolve("views/compacted-001.jsonl")))
        .containsExactly(
            Stream.of(ids).map(id -> "{\"ref\":\"" + id + "\"}").toArray(String[]::new));
  }

  @Test
  void open_newDirectory_createsLayoutWithEmptyMasterView() {
    Path conv = dir.resolve("a/b");
    try (StoredConversation c = StoredConversation.open(conv)) {
      assertThat(c.directory()).isEqualTo(conv.toAbsolutePath());
      assertThat(c.master().size()).isZero();
      assertThat(c.activeView().id()).isEqualTo(View.MASTER_ID);
      assertThat(c.activeView().entries()).isEmpty();
    }
    assertThat(conv.resolve("conversation.jsonl")).isRegularFile();
    assertThat(conv.resolve("compaction.jsonl")).isRegularFile();
    assertThat(conv.resolve("views")).isDirectory();
    assertThat(conv.resolve("tool-outputs")).isDirectory();
  }

  @Test
  void append_writesOneLinePerMessage_andReopenRestoresThemInOrder() throws IOException {
    List<Message> sent = new ArrayList<>();
    try (StoredConversation c = StoredConversation.open(dir)) {
      for (int i = 0; i < 5; i++) {
        Message m = user("m" + i, "line " + i + "\nsecond line");
        c.append(m);
        sent.add(m);
      }
    }
    List<String> lines = Files.readAllLines(master());
    assertThat(lines).hasSize(5);
    assertThat(codec.readLine(lines.get(3))).isEqualTo(sent.get(3));

    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.master().messages()).isEqualTo(sent);
      assertThat(c.activeMessages()).isEqualTo(sent);
      assertThat(c.activeView().id()).isEqualTo(View.MASTER_ID);
    }
  }

  @Test
  void append_keepsInMemoryWhatTheFileHolds_soAReopenChangesNothing() {
    Message m =
        Message.builder(Role.USER)
            .id("a")
            .content("x")
            .metadata(
                new MessageMetadata(null, null, null, null, Map.of("n", 5L, "f", 1.5f, "s", "t")))
            .build();
    List<Message> before;
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(m);
      before = c.master().messages();
      assertThat(before.get(0).metadata().extra())
          .containsEntry("n", 5)
          .containsEntry("f", 1.5)
          .containsEntry("s", "t");
      assertThat(c.activeMessages()).isEqualTo(before);
    }
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.master().messages()).isEqualTo(before);
    }
  }

  @Test
  void append_messageWhoseExtraCannotBeWritten_failsAndWritesNothing() throws IOException {
    Message m = unwritable("a");
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThatThrownBy(() -> c.append(m))
          .isInstanceOf(CompactorException.class)
          .hasMessageContaining("usage");
      assertThat(c.master().size()).isZero();
      c.append(user("b", "fine"));
    }
    assertThat(Files.readAllLines(master())).hasSize(1);
  }

  @Test
  void append_duplicateId_throwsAndWritesNothing() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("m1", "a"));
      long size = Files.size(master());
      assertThatThrownBy(() -> c.append(user("m1", "b")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("m1");
      assertThat(Files.size(master())).isEqualTo(size);
      assertThat(c.master().size()).isEqualTo(1);
    }
  }

  @Test
  void appendAll_writesTheSameBytesAndRangesAsAppendingOneByOne_andReopenRestoresThem()
      throws IOException {
    List<Message> sent = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      sent.add(user("m" + i, "line " + i + "\nsecond line, é ✓"));
    }
    Path one = dir.resolve("one");
    Path all = dir.resolve("all");
    try (StoredConversation c = StoredConversation.open(one)) {
      c.append(user("first", "x"));
      sent.forEach(c::append);
    }
    List<MessageRange> ranges = new ArrayList<>();
    try (StoredConversation c = StoredConversation.open(all)) {
      c.append(user("first", "x"));
      c.appendAll(sent);
      assertThat(c.master().messages()).hasSize(51).endsWith(sent.toArray(Message[]::new));
      assertThat(c.activeMessages()).isEqualTo(c.master().messages());
      for (Message m : sent) {
        MessageRange r = c.recoveryRanges(m.id()).get(0);
        ranges.add(r);
        assertThat(c.read(r)).isEqualTo(m);
      }
    }
    assertThat(Files.readAllBytes(all.resolve("conversation.jsonl")))
        .isEqualTo(Files.readAllBytes(one.resolve("conversation.jsonl")));
    try (StoredConversation c = StoredConversation.open(all)) {
      assertThat(c.master().messages().subList(1, 51)).isEqualTo(sent);
      for (int i = 0; i < sent.size(); i++) {
        assertThat(c.recoveryRanges(sent.get(i).id())).containsExactly(ranges.get(i));
      }
      c.append(user("after", "y")); // the file's end is where appendAll left it
      assertThat(c.recover(MessageId.of("after"))).containsExactly(user("after", "y"));
    }
  }

  @Test
  void appendAll_moreThanOneWriteChunk_storesEveryLineWhole() throws IOException {
    List<Message> sent = new ArrayList<>();
    String big = "x".repeat(300_000);
    for (int i = 0; i < 9; i++) {
      sent.add(user("big" + i, big + i));
    }
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.appendAll(sent);
      for (Message m : sent) {
        assertThat(c.read(c.recoveryRanges(m.id()).get(0))).isEqualTo(m);
      }
    }
    List<String> lines = Files.readAllLines(master());
    assertThat(lines).hasSize(9);
    for (int i = 0; i < 9; i++) {
      assertThat(codec.readLine(lines.get(i))).isEqualTo(sent.get(i));
    }
  }

  @Test
  void appendAll_whileACompactedViewIsActive_referencesThemInItsFile() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      compactToA(c);
      c.appendAll(List.of(user("b", "2"), user("c", "3")));
      assertThat(c.activeMessages()).extracting(m -> m.id().value()).containsExactly("a", "b", "c");
    }
    assertThat(Files.readAllLines(dir.resolve("views/compacted-001.jsonl")))
        .containsExactly("{\"ref\":\"a\"}", "{\"ref\":\"b\"}", "{\"ref\":\"c\"}");
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.activeView().id()).isEqualTo("compacted-001");
      assertThat(c.activeMessages()).extracting(m -> m.id().value()).containsExactly("a", "b", "c");
    }
  }

  @Test
  void appendAll_storedOrRepeatedId_orAMessageThatCannotBeWritten_writesNothing()
      throws IOException {
    Message unwritable = unwritable("bad");
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("m1", "a"));
      long size = Files.size(master());
      assertThatThrownBy(() -> c.appendAll(List.of(user("m2", "b"), user("m1", "c"))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("m1");
      assertThatThrownBy(() -> c.appendAll(List.of(user("m2", "b"), user("m2", "c"))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("m2");
      assertThatThrownBy(() -> c.appendAll(List.of(user("m2", "b"), unwritable)))
          .isInstanceOf(CompactorException.class)
          .hasMessageContaining("usage");
      assertThat(Files.size(master())).isEqualTo(size);
      assertThat(c.master().size()).isEqualTo(1);
      c.appendAll(List.of(user("m2", "b")));
      c.appendAll(List.of());
    }
    assertThat(Files.readAllLines(master())).hasSize(2);
  }

  @Test
  void switchTo_persistsViews_andReopenRestoresEveryViewAndTheActiveOne() throws IOException {
    List<View> before;
    try (StoredConversation c = StoredConversation.open(dir)) {
      CompactedConversation.write(c);
      before = c.views();
      assertThat(c.activeView().id()).isEqualTo("compacted-001");
    }
    assertThat(dir.resolve("views/compacted-001.jsonl")).isRegularFile();
    assertThat(dir.resolve("views/master.jsonl")).doesNotExist();
    List<String> viewLines = Files.readAllLines(dir.resolve("views/compacted-001.jsonl"));
    assertThat(viewLines).hasSize(3);
    assertThat(viewLines.get(0)).startsWith("{\"synthesized\":").contains("\"ranges\":[");
    assertThat(viewLines.get(1)).isEqualTo("{\"ref\":\"d\"}");
    assertThat(viewLines.get(2)).isEqualTo("{\"ref\":\"e\"}");
    assertThat(Files.readString(dir.resolve("views.json")))
        .contains("\"active\":\"compacted-001\"");

    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.views()).isEqualTo(before);
      assertThat(c.activeView().id()).isEqualTo("compacted-001");
      assertThat(c.nextViewId()).isEqualTo("compacted-002");
      assertThat(c.activeMessages())
          .extracting(m -> m.id().value())
          .containsExactly("s1", "d", "e");
    }
  }

  @Test
  void recover_afterSeveralCompactionsAndReopen_returnsExactOriginalsFromByteRanges()
      throws IOException {
    Message a =
        Message.builder(Role.USER)
            .id("a")
            .content("héllo 👋 — 日本語")
            .timestamp(Instant.parse("2025-01-01T00:00:00Z"))
            .build();
    Message b =
        Message.builder(Role.ASSISTANT)
            .id("b")
            .content("")
            .reasoning(List.of(new ReasoningBlock("thinking", "hmm", "sig")))
            .toolCalls(List.of(new ToolCall("c1", "shell", "{\"cmd\":\"ls\"}")))
            .build();
    Message t = Message.toolResult("c1", "x".repeat(200_000)).withId(MessageId.of("t"));
    Message d = user("d", "next");
    Message e = user("e", "later");
    Message f = user("f", "latest");
    Message stub1 = Message.system("[tool output pruned]").withId(MessageId.of("stub1"));
    Message checkpoint = Message.system("checkpoint").withId(MessageId.of("cp"));

    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(a);
      c.append(b);
      c.append(t);
      c.append(d);
      c.switchTo(
          new View(
              c.nextViewId(),
              List.of(
                  new ViewEntry.Ref(a.id()),
                  new ViewEntry.Ref(b.id()),
                  new ViewEntry.Synthesized(stub1, List.of(t.id())),
                  new ViewEntry.Ref(d.id()))));
      c.append(e);
      c.switchTo(
          new View(
              c.nextViewId(),
              List.of(
                  new ViewEntry.Synthesized(checkpoint, List.of(a.id(), b.id(), t.id(), d.id())),
                  new ViewEntry.Ref(e.id()))));
      c.append(f);
      assertThat(c.recover(stub1.id())).containsExactly(t);
      assertThat(c.recover(checkpoint.id())).containsExactly(a, b, t, d);
    }
    // Master index no longer equals line number: a blank line and a repaired torn tail.
    appendRaw(master(), "\n{\"id\":\"torn");

    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.recover(stub1.id())).containsExactly(t);
      assertThat(c.recover(checkpoint.id())).containsExactly(a, b, t, d);
      assertThat(c.recover(f.id())).containsExactly(f);
      c.append(user("g", "after reopen"));
      Message stub2 = Message.system("all of it").withId(MessageId.of("stub2"));
      c.switchTo(
          new View(
              c.nextViewId(),
              List.of(
                  new ViewEntry.Synthesized(
                      stub2,
                      List.of(
                          a.id(), b.id(), t.id(), d.id(), e.id(), f.id(), MessageId.of("g"))))));
      assertThat(c.recover(stub2.id()))
          .extracting(m -> m.id().value())
          .containsExactly("a", "b", "t", "d", "e", "f", "g");
      assertThat(c.activeView().id()).isEqualTo("compacted-003");
    }
    try (StoredConversation c = StoredConversation.open(dir)) {
      // every view's synthesized entries still recover, whichever view is active
      assertThat(c.recover(stub1.id())).containsExactly(t);
      assertThat(c.recover(MessageId.of("stub2"))).hasSize(7).startsWith(a, b, t, d, e, f);
      byte[] file = Files.readAllBytes(master());
      for (MessageRange r : c.recoveryRanges(checkpoint.id())) {
        String line =
            new String(
                Arrays.copyOfRange(file, (int) r.start(), (int) r.end()), StandardCharsets.UTF_8);
        assertThat(codec.readLine(line).id()).isEqualTo(r.id());
        assertThat(file[(int) r.end()]).isEqualTo((byte) '\n');
      }
    }
  }

  @Test
  void recover_unknownId_failsNamingIt() {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "x"));
      assertThatThrownBy(() -> c.recover(MessageId.of("ghost")))
          .isInstanceOf(CompactorException.class)
          .hasMessageContaining("ghost");
    }
  }

  @Test
  void read_rangeThatNoLongerHoldsItsMessage_failsNamingTheByteRange() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "x"));
      MessageRange r = c.recoveryRanges(MessageId.of("a")).get(0);
      assertThatThrownBy(() -> c.read(new MessageRange(r.id(), r.start() + 1, r.end())))
          .isInstanceOf(LogFormatException.class)
          .hasMessageContaining("invalid JSON at byte range " + (r.start() + 1) + "-" + r.end());
    }
  }

  @Test
  void open_tornLastLine_isTruncatedAndEarlierLinesKept() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "one"));
      c.append(user("b", "two"));
    }
    long good = Files.size(master());
    appendRaw(master(), "{\"id\":\"c\",\"role\":\"user\",\"content\":\"thr");

    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.master().messages()).extracting(m -> m.id().value()).containsExactly("a", "b");
      assertThat(Files.size(master())).isEqualTo(good);
      c.append(user("c", "three"));
    }
    assertThat(Files.readAllLines(master())).hasSize(3);
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.master().messages())
          .extracting(m -> m.id().value())
          .containsExactly("a", "b", "c");
    }
  }

  @Test
  void open_tornTailOfNulBytes_isTruncated() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "one"));
    }
    long good = Files.size(master());
    appendRaw(master(), new byte[64]);
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.master().size()).isEqualTo(1);
    }
    assertThat(Files.size(master())).isEqualTo(good);
  }

  @Test
  void open_completeLastLineWithoutLineBreak_isKeptAndTerminated() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "one"));
    }
    appendRaw(master(), codec.writeLine(user("b", "two")));
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.master().messages()).extracting(m -> m.id().value()).containsExactly("a", "b");
      c.append(user("c", "three"));
    }
    List<String> lines = Files.readAllLines(master());
    assertThat(lines).hasSize(3);
    assertThat(codec.readLine(lines.get(2)).id().value()).isEqualTo("c");
  }

  @Test
  void open_malformedLineBeforeTheLast_failsWithPathLineAndOffset_andChangesNothing()
      throws IOException {
    String line1 = codec.writeLine(user("a", "one")) + "\n";
    String line2 = "{\"id\":\"b\",\"role\":\"user\",\"content\":\"tw\n";
    String line3 = codec.writeLine(user("c", "three")) + "\n";
    appendRaw(master(), line1 + line2 + line3);
    byte[] before = Files.readAllBytes(master());

    assertThatThrownBy(() -> StoredConversation.open(dir))
        .isInstanceOfSatisfying(
            LogFormatException.class,
            e -> {
              assertThat(e.file()).isEqualTo(master().toAbsolutePath());
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.byteOffset()).isEqualTo(line1.length());
            })
        .hasMessageContaining(
            master().toAbsolutePath() + ":2 (byte offset " + line1.length() + ")");
    assertThat(Files.readAllBytes(master())).isEqualTo(before);
    // the lock was released: opening again reports the same error, not a lock conflict
    assertThatThrownBy(() -> StoredConversation.open(dir)).isInstanceOf(LogFormatException.class);
  }

  @Test
  void open_malformedLastLineWithLineBreak_isAnErrorNotARepair() throws IOException {
    appendRaw(master(), codec.writeLine(user("a", "one")) + "\n{\"id\":\n");
    assertThatThrownBy(() -> StoredConversation.open(dir))
        .isInstanceOf(LogFormatException.class)
        .hasMessageContaining(":2 ");
  }

  @Test
  void open_duplicateMessageId_failsNamingBothLines() throws IOException {
    appendRaw(
        master(), codec.writeLine(user("a", "1")) + "\n" + codec.writeLine(user("a", "2")) + "\n");
    assertOpenFails(":2 ", "duplicate message id a (first on line 1)");
  }

  @Test
  void open_invalidUtf8_decodesToReplacementCharacter() throws IOException {
    byte[] prefix =
        "{\"id\":\"a\",\"role\":\"user\",\"content\":\"bad ".getBytes(StandardCharsets.UTF_8);
    byte[] suffix = " end\"}\n".getBytes(StandardCharsets.UTF_8);
    byte[] line = new byte[prefix.length + 2 + suffix.length];
    System.arraycopy(prefix, 0, line, 0, prefix.length);
    line[prefix.length] = (byte) 0xFF;
    line[prefix.length + 1] = (byte) 0xC3; // truncated two-byte sequence
    System.arraycopy(suffix, 0, line, prefix.length + 2, suffix.length);
    appendRaw(master(), line);

    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.master().messages().get(0).content()).isEqualTo("bad \uFFFD\uFFFD end");
      assertThat(c.recover(MessageId.of("a")).get(0).content()).isEqualTo("bad \uFFFD\uFFFD end");
    }
  }

  @Test
  void open_crashBetweenMasterAndViewAppend_addsTheMissingReference() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      compactToA(c);
      c.append(user("b", "2"));
    }
    // the master line of "c" made it, its view line was torn
    appendRaw(master(), codec.writeLine(user("c", "3")) + "\n");
    appendRaw(dir.resolve("views/compacted-001.jsonl"), "{\"ref\":\"");

    assertReopenedWithRefs("a", "b", "c");
  }

  @Test
  void open_crashAfterABatchsMasterLines_addsEveryMissingReference() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      compactToA(c);
    }
    // an appendAll's master lines made it, none of its view lines did
    appendRaw(
        master(), codec.writeLine(user("b", "2")) + "\n" + codec.writeLine(user("c", "3")) + "\n");

    assertReopenedWithRefs("a", "b", "c");
  }

  @Test
  void open_tornLineInAViewNoLongerActive_isAnError() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      compactToA(c);
      c.switchTo(View.ofRefs(c.nextViewId(), List.of(MessageId.of("a"))));
    }
    Path old = dir.resolve("views/compacted-001.jsonl");
    appendRaw(old, "{\"ref\":\"");
    assertOpenFails(old.toAbsolutePath() + ":2 (byte offset 12)", "no longer active");
  }

  @Test
  void open_messageDroppedByCompaction_isNotAddedBackToTheView() {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "1"));
      c.append(Message.builder(Role.SYSTEM).id("status").uiOnly(true).content("saved").build());
      c.switchTo(View.ofRefs(c.nextViewId(), List.of(MessageId.of("a"))));
    }
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.activeMessages()).extracting(m -> m.id().value()).containsExactly("a");
    }
  }

  @Test
  void open_viewRangesNoLongerMatchingMasterFile_failsNamingTheViewLine() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "1"));
      c.append(user("b", "2"));
      c.switchTo(
          new View(
              c.nextViewId(),
              List.of(
                  new ViewEntry.Synthesized(
                      Message.system("stub").withId(MessageId.of("s")), List.of(MessageId.of("a"))),
                  new ViewEntry.Ref(MessageId.of("b")))));
    }
    // someone rewrote the master file: same messages, other byte offsets
    List<String> lines = Files.readAllLines(master());
    Files.writeString(master(), "\n" + String.join("\n", lines) + "\n");

    Path viewFile = dir.resolve("views/compacted-001.jsonl").toAbsolutePath();
    assertOpenFails(viewFile + ":1 (byte offset 0)", "do not match conversation.jsonl");
  }

  @Test
  void open_viewReferencingUnknownMessage_failsNamingFileAndLine() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      compactToA(c);
    }
    Path viewFile = dir.resolve("views/compacted-001.jsonl");
    Files.writeString(viewFile, "{\"ref\":\"a\"}\n{\"ref\":\"nope\"}\n{\"ref\":\"a2\"}\n");
    assertOpenFails(viewFile.toAbsolutePath() + ":2 (byte offset 12)", "nope");
  }

  @Test
  void switchTo_invalidView_throwsAndChangesNothing() {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "1"));
      View before = c.activeView();
      assertThatThrownBy(
              () -> c.switchTo(View.ofRefs("compacted-001", List.of(MessageId.of("nope")))))
          .isInstanceOf(CompactorException.class)
          .hasMessageContaining("nope");
      assertThat(c.activeView()).isEqualTo(before);
      assertThat(dir.resolve("views/compacted-001.jsonl")).doesNotExist();
      assertThat(dir.resolve("views.json")).doesNotExist();
      c.append(user("b", "2"));
      assertThat(c.activeMessages()).hasSize(2);
    }
  }

  @Test
  void open_viewFileNotListedInViewsJson_isIgnored() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(user("a", "1"));
    }
    // a crash after writing the view file but before views.json
    Files.writeString(dir.resolve("views/compacted-001.jsonl"), "{\"ref\":\"a\"}\n");
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.activeView().id()).isEqualTo(View.MASTER_ID);
      assertThat(c.nextViewId()).isEqualTo("compacted-001");
      c.switchTo(View.ofRefs(c.nextViewId(), List.of()));
      assertThat(c.activeView().id()).isEqualTo("compacted-001");
    }
    assertThat(Files.readString(dir.resolve("views/compacted-001.jsonl"))).isEmpty();
  }

  @Test
  void open_sameDirectoryTwiceInOneJvm_throwsLockedUntilClosed() {
    StoredConversation first = StoredConversation.open(dir);
    try {
      assertThatThrownBy(() -> StoredConversation.open(dir))
          .isInstanceOf(ConversationLockedException.class)
          .isInstanceOf(CompactorException.class)
          .hasMessageContaining(dir.toAbsolutePath().toString())
          .hasMessageContaining("already open");
    } finally {
      first.close();
    }
    try (StoredConversation again = StoredConversation.open(dir)) {
      assertThat(again.master().size()).isZero();
    }
  }

  @Test
  void open_pathThatIsAFile_failsNamingIt() throws IOException {
    Path file = Files.writeString(dir.resolve("plain"), "x");
    assertThatThrownBy(() -> StoredConversation.open(file))
        .isInstanceOf(LogIOException.class)
        .hasMessageContaining(file.toAbsolutePath().toString());
  }

  @Test
  void master_isReadOnly() {
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThatThrownBy(() -> c.master().append(user("a", "x")))
          .isInstanceOf(UnsupportedOperationException.class);
      assertThat(c.master().size()).isZero();
    }
  }

  @Test
  void closed_operationsFailNamingTheDirectory_andCloseIsIdempotent() {
    StoredConversation c = StoredConversation.open(dir);
    c.close();
    c.close();
    assertThatThrownBy(() -> c.append(user("a", "x")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("is closed");
    assertThatThrownBy(c::activeView).isInstanceOf(CompactorException.class);
    assertThatThrownBy(() -> c.saveToolOutput("x")).isInstanceOf(CompactorException.class);
  }

  @Test
  void open_leftoverTempFiles_areDeleted() throws IOException {
    StoredConversation.open(dir).close();
    Path temp = Files.writeString(dir.resolve(".settings.json.0123456789abcdef.tmp"), "{}");
    Path notOurs = Files.writeString(dir.resolve("notes.tmp"), "keep");
    StoredConversation.open(dir).close();
    assertThat(temp).doesNotExist();
    assertThat(notOurs).exists();
  }

  @Test
  void everyLineOfEveryJsonlFile_isValidJsonAfterAMixedSession() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      for (int i = 0; i < 10; i++) {
        c.append(user("m" + i, "text " + i));
      }
      c.switchTo(View.ofRefs(c.nextViewId(), List.of(MessageId.of("m9"))));
      c.append(user("m10", "x"));
      c.journal()
          .append(
              new CompactionRecord(Instant.EPOCH, "auto", "trim", 10, 5, 10, 1, "compacted-001"));
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".jsonl")).toList()) {
        for (String line : Files.readAllLines(f)) {
          assertThat(codec.parseLine(line).isObject()).as(f + ": " + line).isTrue();
        }
      }
    }
  }
}
