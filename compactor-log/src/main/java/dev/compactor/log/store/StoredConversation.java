package dev.compactor.log.store;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.MasterLog;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.wire.json.MessageCodec;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/**
 * A conversation stored losslessly in its own directory: the master log, every view, saved tool
 * outputs, the compaction journal and per-conversation settings.
 *
 * <pre>
 * conversation.jsonl   every message ever appended, one native JSON line each (MessageCodec)
 * views.json           the compacted views in order, the last one active
 * views/&lt;id&gt;.jsonl     a compacted view, one entry per line: {"ref":id} or
 *                      {"synthesized":message,"covers":[ids],"ranges":[{"id","start","end"}]}
 * tool-outputs/        content removed by compaction: &lt;yyyyMMdd'T'HHmmss.SSS'Z'&gt;-&lt;crc8&gt;.txt
 * compaction.jsonl     one CompactionRecord per compaction
 * settings.json        {"key":"value",...}
 * .lock                held (FileChannel lock) while the directory is open
 * </pre>
 *
 * <p>It offers the operations of {@link Conversation}, which it uses on top of a {@link MasterLog}
 * kept in {@code conversation.jsonl}, and persists each one before returning: {@link #append}
 * writes the message line (and, while a compacted view is active, a reference line in that view's
 * file) and forces it to the device; {@link #appendAll} does so for many messages with one force
 * per file; {@link #switchTo} writes the view file and then {@code views.json}. The initial {@value
 * View#MASTER_ID} view has no file.
 *
 * <p>Every synthesized entry carries a recovery reference: for each master message it covers, the
 * byte range of that message's line in {@code conversation.jsonl}. {@link #recover} reads those
 * bytes back and decodes them, so it returns the original messages exactly, on any view, after any
 * number of compactions and reopenings.
 *
 * <p>Opening repairs what a crash can leave: a torn last line (cut off; a complete line that only
 * lacks its line break is kept) and a view reference that was not yet written for the last appended
 * message. Anything else that is malformed fails with a {@link LogFormatException} naming file,
 * line and byte offset, and nothing is changed.
 *
 * <p>Only one instance may have a directory open: a second open, from another process or this JVM,
 * fails with {@link ConversationLockedException} until the first is {@linkplain #close closed}.
 *
 * <p>Thread-safe: methods synchronize on the instance. After a failed write that may have left
 * memory and disk apart, the instance refuses further writes ({@link LogIOException}); reopen the
 * directory to repair. After {@link #close}, every method but {@link #directory} and {@code close}
 * throws {@link CompactorException}.
 *
 * <pre>{@code
 * try (StoredConversation c = StoredConversation.open(Path.of("chats/42"))) {
 *   c.append(Message.user("hello"));
 *   Message stub = Message.system("[earlier turns summarized]");
 *   c.switchTo(new View(c.nextViewId(),
 *       List.of(new ViewEntry.Synthesized(stub, coveredIds), new ViewEntry.Ref(lastId))));
 *   List<Message> originals = c.recover(stub.id());
 * }
 * }</pre>
 */
public final class StoredConversation implements Conversation, AutoCloseable {
  /*
   * Design. The files are the truth and memory mirrors them: opening reads everything, each write
   * reaches the device before memory changes, so a crash at any point loses at most the operation
   * that had not returned. JSONL files are only appended to, each line in one write followed by
   * force() (appendAll: many whole lines in a few writes, then one force()), so a crash can only
   * tear the last line, which opening cuts off. Whole files
   * (views/<id>.jsonl when created, views.json, settings.json, tool outputs) are written to a temp
   * file and renamed, so they are old or new, never half. An append touches two files: the master
   * line is written first and commits the message; the view's ref line second, and opening adds a
   * ref that a crash kept out of the active view (views.json records the master size when each view
   * became active, so "appended since" is exact). A view switch commits when views.json is renamed;
   * a view file without its views.json entry is ignored. Recovery never trusts line numbers: each
   * message's byte range is recorded as it is read or appended, stored with every synthesized entry
   * and checked against the file on open. The directory lock is an OS file lock on .lock, so it
   * dies with the process; within one JVM a set of open directories guards it (see below).
   */

  static final String MASTER_FILE = "conversation.jsonl";
  static final String LOCK_FILE = ".lock";
  static final String TOOL_OUTPUTS = "tool-outputs";

  /*
   * Directories open in this JVM. Checked before the lock file is touched: on Linux (POSIX locks)
   * closing any channel on the lock file, such as a failed second open's, would release the lock
   * the first instance holds.
   */
  private static final Set<Path> OPEN_IN_THIS_JVM = ConcurrentHashMap.newKeySet();
  private static final String IN_THIS_JVM =
      "in this JVM (close the other StoredConversation first)";

  /** A saved tool output's name starts with its time, {@code yyyyMMdd'T'HHmmss.SSS'Z'} in UTC. */
  private static final DateTimeFormatter TOOL_OUTPUT_SECOND =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);

  /**
   * The second of the last tool output's name and its text (formatting one costs more than a save's
   * other work).
   */
  private record NamedSecond(long epochSecond, String text) {}

  private volatile NamedSecond lastNamedSecond;

  /**
   * The names in each directory tool outputs were saved in (toolOutputLock): listed once, then kept
   * up to date by the saves (the directory lock keeps other writers out). Asking the file system
   * for each name instead waited on the directory while the writer created files in it.
   */
  private final Map<Path, Set<String>> toolOutputNames = new HashMap<>();

  private final Path dir;
  private final Path key;
  private final Clock clock;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final Object toolOutputLock = new Object();

  /** Tool outputs saved by {@link #saveToolOutputUnsynced} and not yet flushed. */
  private final PendingToolOutputs unsyncedToolOutputs;

  private JsonlMasterLog log;
  private ViewStore views;
  private InMemoryConversation conversation;
  private final Map<MessageId, List<MessageRange>> recovery = new HashMap<>();
  private CompactionJournal journal;
  private ConversationSettings settings;
  private final MasterLog readOnlyMaster = new ReadOnlyMaster();
  private volatile boolean closed;
  private String brokenBy;
  private final List<String> readOnlyProblems; // null unless opened read-only

  private StoredConversation(
      Path dir,
      Path key,
      Clock clock,
      FileChannel lockChannel,
      FileLock lock,
      PendingToolOutputs toolOutputs) {
    this.dir = dir;
    this.unsyncedToolOutputs = toolOutputs;
    this.key = key;
    this.clock = clock;
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.readOnlyProblems = null;
  }

  private StoredConversation(Path dir) {
    this.dir = dir;
    this.key = null;
    this.clock = Clock.systemUTC();
    this.lockChannel = null;
    this.lock = null;
    this.readOnlyProblems = new ArrayList<>();
    this.unsyncedToolOutputs = null; // nothing is written
  }

  /**
   * Opens the conversation in {@code directory} for reading only, in place: no lock is taken and
   * nothing is created, deleted, repaired or written, so a read-only directory (or one another
   * process has open) can be read. What a crash left that opening would repair — a torn or
   * unterminated last line, a missing view reference — is read around as {@link #open} would and
   * described in {@link #readOnlyProblems()}; the files stay as they are. Every write ({@link
   * #append}, {@link #switchTo}, settings, the journal, tool outputs) is refused.
   *
   * @throws LogFormatException when a file is malformed in a way that is not a crash's
   * @throws LogIOException when the directory or a file cannot be read
   */
  public static StoredConversation openReadOnly(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new LogIOException(dir, "is not a directory");
    }
    return new StoredConversation(dir).loadOrClose();
  }

  /**
   * What a {@linkplain #openReadOnly read-only open} left as it is that {@link #open} would have
   * repaired, one sentence each naming the file; empty for a directory opened for writing.
   */
  public List<String> readOnlyProblems() {
    return readOnlyProblems == null ? List.of() : List.copyOf(readOnlyProblems);
  }

  /**
   * Loads the files, for reading only or for writing as this was opened, and returns this; closes
   * this and rethrows when that fails.
   */
  private StoredConversation loadOrClose() {
    try {
      if (readOnlyProblems != null) {
        loadReadOnly();
      } else {
        load();
      }
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
    return this;
  }

  private void loadReadOnly() {
    loadFiles(new MessageCodec());
  }

  /**
   * Reads the master log, the views, the journal and the settings: for reading only (nothing
   * created or repaired) when {@link #readOnlyProblems} is not null, else for writing.
   */
  private void loadFiles(MessageCodec codec) {
    log = JsonlMasterLog.open(dir.resolve(MASTER_FILE), codec, readOnlyProblems);
    views = ViewStore.open(dir, log, codec, readOnlyProblems);
    ViewStore.Loaded loaded = views.load(log);
    try {
      conversation = new InMemoryConversation(log, loaded.history());
    } catch (CompactorException e) {
      throw new LogFormatException(dir.resolve(ViewStore.DIR), 0, -1, e.getMessage(), e);
    }
    recovery.putAll(loaded.recovery());
    journal =
        CompactionJournal.open(this, dir.resolve(CompactionJournal.FILE), codec, readOnlyProblems);
    settings = ConversationSettings.open(this, dir.resolve(ConversationSettings.FILE), codec);
  }

  /**
   * Opens the conversation in {@code directory}, creating the directory and its files when missing,
   * with the system UTC clock.
   *
   * @see #open(Path, Clock)
   */
  public static StoredConversation open(Path directory) {
    return open(directory, Clock.systemUTC());
  }

  /**
   * Opens the conversation in {@code directory}, creating the directory and its files when missing,
   * and repairing what a crash left (see the class comment).
   *
   * @param clock names saved tool outputs
   * @throws ConversationLockedException when the directory is open elsewhere (another process, or
   *     another instance in this JVM)
   * @throws LogFormatException when a file is malformed in a way that is not a crash's torn last
   *     line; nothing is changed then
   * @throws LogIOException when the directory or a file cannot be created, read or repaired
   */
  public static StoredConversation open(Path directory, Clock clock) {
    return open(directory, clock, new PendingToolOutputs());
  }

  /**
   * {@link #open(Path, Clock)} with the tool outputs of {@link #saveToolOutputUnsynced} written by
   * {@code toolOutputs}.
   */
  static StoredConversation open(Path directory, Clock clock, PendingToolOutputs toolOutputs) {
    Objects.requireNonNull(clock, "clock");
    Path dir = directory.toAbsolutePath().normalize();
    try {
      Files.createDirectories(dir);
    } catch (FileAlreadyExistsException e) {
      throw new LogIOException(dir, "is not a directory");
    } catch (IOException e) {
      throw new LogIOException(dir, "create", e);
    }
    Path key;
    try {
      key = dir.toRealPath();
    } catch (IOException e) {
      throw new LogIOException(dir, "resolve", e);
    }
    if (!OPEN_IN_THIS_JVM.add(key)) {
      throw new ConversationLockedException(dir, IN_THIS_JVM);
    }
    Path lockFile = dir.resolve(LOCK_FILE);
    FileChannel ch = null;
    try {
      ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = ch.tryLock();
      if (lock == null) {
        throw new ConversationLockedException(
            dir, "in another process (it holds the lock on " + lockFile + ")");
      }
      return new StoredConversation(dir, key, clock, ch, lock, toolOutputs).loadOrClose();
    } catch (OverlappingFileLockException e) {
      // not expected thanks to OPEN_IN_THIS_JVM; the same meaning if it happens
      release(key, ch);
      throw new ConversationLockedException(dir, IN_THIS_JVM);
    } catch (IOException e) {
      release(key, ch);
      throw new LogIOException(lockFile, "lock", e);
    } catch (ConversationLockedException e) {
      release(key, ch);
      throw e;
    }
  }

  private static void release(Path key, FileChannel ch) {
    if (ch != null) {
      closeQuietly(ch);
    }
    OPEN_IN_THIS_JVM.remove(key);
  }

  private void load() {
    MessageCodec codec = new MessageCodec();
    DurableFiles.deleteTempFiles(dir);
    loadFiles(codec);
    log.onAppend(this::afterMasterAppend);
    Path outputs = dir.resolve(TOOL_OUTPUTS);
    try {
      Files.createDirectories(outputs);
    } catch (IOException e) {
      throw new LogIOException(outputs, "create", e);
    }
    DurableFiles.syncDirectory(dir);
  }

  private void afterMasterAppend(List<Message> appended) {
    try {
      views.appendRefs(appended.stream().map(Message::id).toList());
    } catch (RuntimeException e) {
      // The messages are in the master log but not in the active view's file; reopening adds them.
      brokenBy =
          (appended.size() == 1
                  ? "message " + appended.get(0).id() + " was stored but its view reference was not"
                  : appended.size()
                      + " messages from "
                      + appended.get(0).id()
                      + " on were stored but their view references were not")
              + ": "
              + e;
      throw e;
    }
  }

  // ---------------------------------------------------------------- conversation operations

  /**
   * Appends a message to the master log and references it from the active view. Both are on the
   * device when this returns.
   *
   * @throws IllegalArgumentException when a message with this id is already stored
   * @throws LogIOException when writing fails (the message is then not in the master log, unless
   *     only its view reference failed; then reopen to repair)
   * @throws CompactorException when the conversation is closed
   */
  @Override
  public synchronized void append(Message message) {
    Objects.requireNonNull(message, "message");
    appending(() -> conversation.append(message));
  }

  /**
   * Appends messages in order, as {@link #append} of each would, but writes them together: their
   * master lines in one go with one flush, then their view references with one more (while a
   * compacted view is active). All are on the device when this returns, as after {@link #append}; a
   * crash before it returns may keep a prefix of them, which opening completes like a single
   * append's. Importing a transcript appends its messages this way.
   *
   * @throws IllegalArgumentException when a message's id is already stored or repeated among {@code
   *     messages} (nothing is written then)
   * @throws LogIOException when writing fails (none of the messages is then in the master log,
   *     unless only their view references failed; then reopen to repair)
   * @throws CompactorException when the conversation is closed
   */
  public synchronized void appendAll(List<Message> messages) {
    Objects.requireNonNull(messages, "messages");
    messages.forEach(m -> Objects.requireNonNull(m, "message"));
    appending(() -> conversation.appendAll(messages));
  }

  /**
   * Runs {@code write} on a writable conversation; when it fails and the master log could not roll
   * the failed write back, the conversation refuses further writes.
   */
  private void appending(Runnable write) {
    checkWritable();
    try {
      write.run();
    } catch (LogIOException e) {
      if (log.damaged() && brokenBy == null) {
        brokenBy = "appending to " + log.path() + " failed and could not be rolled back: " + e;
      }
      throw e;
    }
  }

  /**
   * Makes {@code next} the active view and persists it, with a recovery reference (the byte ranges
   * of the covered master messages) for each synthesized entry. Its id must be new; use {@link
   * #nextViewId()}.
   *
   * @throws CompactorException when the view id is taken, a reference or covered id is not in the
   *     master log, or a synthesized id is not unique (nothing is changed then)
   * @throws LogIOException when the view cannot be written (the active view is then unchanged)
   */
  @Override
  public synchronized void switchTo(View next) {
    Objects.requireNonNull(next, "view");
    checkWritable();
    syncToolOutputs(); // the files its stubs name, before the view that names them
    List<View> before = conversation.views();
    conversation.switchTo(next);
    Map<MessageId, List<MessageRange>> ranges = new HashMap<>();
    for (ViewEntry e : next.entries()) {
      if (e instanceof ViewEntry.Synthesized s) {
        List<MessageRange> r = new ArrayList<>(s.covers().size());
        s.covers().forEach(c -> r.add(log.range(c).orElseThrow()));
        ranges.put(s.message().id(), List.copyOf(r));
      }
    }
    try {
      views.commit(next, ranges, log.size());
    } catch (RuntimeException e) {
      conversation = new InMemoryConversation(log, before);
      if (e instanceof ViewStore.UncertainCommitException u) {
        brokenBy = "switching to view " + next.id() + " failed after it began to commit: " + u;
        throw u.failure();
      }
      throw e;
    }
    recovery.putAll(ranges);
  }

  /** The view sent to the model. */
  @Override
  public synchronized View activeView() {
    checkOpen();
    return conversation.activeView();
  }

  /** Every view, oldest first; the last is the active one. */
  @Override
  public synchronized List<View> views() {
    checkOpen();
    return conversation.views();
  }

  /** The messages of the active view (including uiOnly ones; filter those before sending). */
  @Override
  public synchronized List<Message> activeMessages() {
    checkOpen();
    return conversation.activeMessages();
  }

  /**
   * The messages of a view.
   *
   * @throws CompactorException when the view references a message not in the master log
   */
  @Override
  public synchronized List<Message> resolve(View view) {
    checkOpen();
    return conversation.resolve(view);
  }

  /** The id the next compaction view should take: {@code compacted-001}, {@code compacted-002}… */
  @Override
  public synchronized String nextViewId() {
    checkOpen();
    return conversation.nextViewId();
  }

  /**
   * The master log (read-only: append through {@link #append}, which also updates the view). Its
   * {@code append} throws {@link UnsupportedOperationException}.
   */
  @Override
  public MasterLog master() {
    checkOpen();
    return readOnlyMaster;
  }

  // ---------------------------------------------------------------- recovery

  /**
   * The original messages behind an id, read back from their byte ranges in {@code
   * conversation.jsonl}: the master message itself, or every master message a synthesized entry of
   * any view covers, in master order.
   *
   * @throws CompactorException when no master message or synthesized entry has this id
   * @throws LogFormatException when a recorded byte range no longer holds its message
   * @throws LogIOException when the file cannot be read
   */
  @Override
  public synchronized List<Message> recover(MessageId id) {
    return recoveryRanges(id).stream().map(log::readBack).toList();
  }

  /**
   * The recovery reference of an id: the byte range of the master message itself, or of each master
   * message a synthesized entry covers.
   *
   * @throws CompactorException when no master message or synthesized entry has this id
   */
  public synchronized List<MessageRange> recoveryRanges(MessageId id) {
    checkOpen();
    Optional<MessageRange> own = log.range(id);
    if (own.isPresent()) {
      return List.of(own.get());
    }
    List<MessageRange> covered = recovery.get(id);
    if (covered == null) {
      throw new CompactorException(
          "no master message or synthesized entry with id " + id + " in conversation " + dir);
    }
    return covered;
  }

  /**
   * Reads the message stored at a byte range of {@code conversation.jsonl} (as given by {@link
   * #recoveryRanges}) and decodes it.
   *
   * @throws LogFormatException when the bytes are not the JSON line of message {@code range.id()}
   * @throws LogIOException when the range is outside the file or the file cannot be read
   */
  public synchronized Message read(MessageRange range) {
    checkOpen();
    return log.readBack(range);
  }

  // ---------------------------------------------------------------- side files

  /**
   * Saves content a compaction removes (usually a tool output) as {@code
   * tool-outputs/<timestamp>-<crc8>.txt} (crc8: the CRC-32C of the bytes in hex) (UTF-8), durably,
   * before returning. Saving the same content in the same millisecond returns the same file.
   *
   * @return the absolute path of the file
   * @throws LogIOException when the file cannot be written
   */
  public Path saveToolOutput(String content) {
    return saveToolOutput(content, null);
  }

  /**
   * Like {@link #saveToolOutput(String)}, in the subdirectory {@code tool-outputs/<category>} (e.g.
   * {@code autocompact}).
   *
   * @param category 1-64 letters, digits, '.', '_' or '-', not "." or ".."; null for none
   * @throws IllegalArgumentException when the category is not such a name
   * @throws LogIOException when the file cannot be written
   */
  public Path saveToolOutput(String content, String category) {
    return saveToolOutput(content, category, true);
  }

  /**
   * Like {@link #saveToolOutput(String, String)}, but made durable only before the next view is
   * committed ({@link #switchTo}) or when the conversation is closed: the saves of one compaction
   * then share their disk flushes, and a view never names a file that a crash could lose. The
   * {@link StoredArchive} saves this way.
   */
  Path saveToolOutputUnsynced(String content, String category) {
    return saveToolOutput(content, category, false);
  }

  /** The tool outputs saved by {@link #saveToolOutputUnsynced} and not flushed yet, in order. */
  List<Path> unsyncedToolOutputs() {
    return unsyncedToolOutputs == null ? List.of() : unsyncedToolOutputs.files();
  }

  /**
   * Waits for the tool outputs saved for a compaction (whose files are written in the background)
   * and makes them durable; committing a view that names them does this first.
   *
   * @throws LogIOException naming a file that could not be written or flushed
   */
  public void flushToolOutputs() {
    checkOpen();
    syncToolOutputs();
  }

  /**
   * Waits for the writes of the tool outputs saved by {@link #saveToolOutputUnsynced} so far and
   * flushes them.
   */
  private void syncToolOutputs() {
    if (unsyncedToolOutputs == null) {
      return;
    }
    try {
      unsyncedToolOutputs.flush();
    } catch (RuntimeException e) {
      synchronized (toolOutputLock) {
        toolOutputNames.clear(); // a name whose write failed is free again: list anew
      }
      throw e;
    }
  }

  /** The names in {@code directory}, created when missing (toolOutputLock held). */
  private Set<String> toolOutputNames(Path directory) throws IOException {
    Set<String> names = toolOutputNames.get(directory);
    if (names == null) {
      if (!Files.isDirectory(directory)) { // createDirectories throws and catches when it exists
        Files.createDirectories(directory);
      }
      names = new HashSet<>();
      try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
        for (Path f : files) {
          names.add(f.getFileName().toString());
        }
      }
      toolOutputNames.put(directory, names);
    }
    return names;
  }

  /** Whether a tool output category is 1-64 letters, digits, '.', '_' or '-', not "." or "..". */
  private static boolean isCategoryName(String category) {
    if (category.isEmpty()
        || category.length() > 64
        || category.equals(".")
        || category.equals("..")) {
      return false;
    }
    for (int i = 0; i < category.length(); i++) {
      char c = category.charAt(i);
      boolean ok =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** {@code t} as {@code yyyyMMdd'T'HHmmss.SSS'Z'} in UTC. */
  private String timeName(Instant t) {
    NamedSecond s = lastNamedSecond;
    if (s == null || s.epochSecond() != t.getEpochSecond()) {
      s = new NamedSecond(t.getEpochSecond(), TOOL_OUTPUT_SECOND.format(t));
      lastNamedSecond = s;
    }
    int ms = t.getNano() / 1_000_000;
    return s.text()
        + '.'
        + (char) ('0' + ms / 100)
        + (char) ('0' + ms / 10 % 10)
        + (char) ('0' + ms % 10)
        + 'Z';
  }

  private Path saveToolOutput(String content, String category, boolean durable) {
    Objects.requireNonNull(content, "content");
    if (category != null && !isCategoryName(category)) {
      throw new IllegalArgumentException(
          "tool output category \""
              + category
              + "\" must be 1-64 letters, digits, '.', '_' or '-'");
    }
    checkOpenForWrites();
    Path target = dir.resolve(TOOL_OUTPUTS);
    if (category != null) {
      target = target.resolve(category);
    }
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    // the name only has to be unique (a clash takes the next "-n"): a CRC-32C of the bytes, which
    // the JVM computes at full speed from its first call, where a SHA-256 of every saved output
    // ran interpreted in a one-shot command (70 ms for the 5.5 MB a trim of 2,000 messages saves)
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    String base =
        timeName(clock.instant()) + "-" + HexFormat.of().toHexDigits((int) crc.getValue());
    synchronized (toolOutputLock) {
      try {
        Set<String> names = toolOutputNames(target);
        for (int n = 1; ; n++) {
          String name = n == 1 ? base + ".txt" : base + "-" + n + ".txt";
          Path file = target.resolve(name);
          byte[] pending = unsyncedToolOutputs.bytesOf(file);
          if (pending != null) { // saved unflushed, perhaps still being written
            if (!Arrays.equals(pending, bytes)) {
              continue;
            }
            if (durable) {
              unsyncedToolOutputs.flush(List.of(file));
            }
            return file;
          }
          if (!names.contains(name)) {
            if (durable) {
              DurableFiles.writeAtomically(file, bytes);
            } else {
              unsyncedToolOutputs.add(file, bytes);
            }
            names.add(name);
            return file;
          }
          byte[] existing;
          try {
            existing = Files.readAllBytes(file);
          } catch (NoSuchFileException gone) { // removed by hand since it was listed
            names.remove(name);
            n--;
            continue;
          }
          if (Arrays.equals(existing, bytes)) {
            return file;
          }
        }
      } catch (IOException e) {
        throw new LogIOException(target, "save a tool output in", e);
      }
    }
  }

  /**
   * How many master messages there were when a view became active (0 for the {@value
   * View#MASTER_ID} view): the messages from that index on were appended while it was active.
   *
   * @throws CompactorException when no view has this id
   */
  public synchronized int masterSizeWhenActivated(String viewId) {
    checkOpen();
    return views
        .masterSizeWhenActivated(viewId)
        .orElseThrow(() -> new CompactorException("no view " + viewId + " in conversation " + dir));
  }

  /** The compaction journal ({@code compaction.jsonl}). */
  public CompactionJournal journal() {
    checkOpen();
    return journal;
  }

  /** The persisted settings of this conversation ({@code settings.json}). */
  public ConversationSettings settings() {
    checkOpen();
    return settings;
  }

  /** The conversation directory (absolute). */
  public Path directory() {
    return dir;
  }

  /** The master log file, {@code conversation.jsonl}. */
  public Path conversationFile() {
    return dir.resolve(MASTER_FILE);
  }

  /** Closes the files and releases the directory lock. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      syncToolOutputs();
    } finally {
      if (unsyncedToolOutputs != null) {
        unsyncedToolOutputs.close();
      }
      closeFiles();
    }
  }

  private void closeFiles() {
    if (views != null) {
      views.close();
    }
    if (log != null) {
      log.close();
    }
    if (journal != null) {
      journal.close();
    }
    if (lock == null) {
      return; // opened read-only: no lock
    }
    try {
      lock.release();
    } catch (IOException ignored) {
      // closing the channel releases it too
    }
    release(key, lockChannel);
  }

  void checkOpen() {
    if (closed) {
      throw new CompactorException("conversation " + dir + " is closed");
    }
  }

  /** Refuses writes to a closed conversation or one opened read-only. */
  void checkOpenForWrites() {
    checkOpen();
    if (readOnlyProblems != null) {
      throw new CompactorException(
          "conversation " + dir + " was opened read-only; nothing can be written to it");
    }
  }

  private void checkWritable() {
    checkOpenForWrites();
    if (brokenBy != null) {
      throw new LogIOException(
          dir, "refuses writes after a failed write (" + brokenBy + "); reopen it to repair");
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // nothing is pending on a lock file
    }
  }

  /** The master log as callers see it: readable, appended to only through the conversation. */
  private final class ReadOnlyMaster implements MasterLog {
    @Override
    public void append(Message message) {
      throw new UnsupportedOperationException(
          "append through StoredConversation.append, which also updates the active view");
    }

    @Override
    public Optional<Message> get(MessageId id) {
      synchronized (StoredConversation.this) {
        checkOpen();
        return log.get(id);
      }
    }

    @Override
    public int indexOf(MessageId id) {
      synchronized (StoredConversation.this) {
        checkOpen();
        return log.indexOf(id);
      }
    }

    @Override
    public int size() {
      synchronized (StoredConversation.this) {
        checkOpen();
        return log.size();
      }
    }

    @Override
    public List<Message> messages() {
      synchronized (StoredConversation.this) {
        checkOpen();
        return log.messages();
      }
    }
  }
}
