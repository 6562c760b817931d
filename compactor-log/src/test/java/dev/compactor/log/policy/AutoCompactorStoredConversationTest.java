package dev.compactor.log.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.log.policy.PolicyReplay.Event;
import dev.compactor.log.policy.PolicyReplay.Scenario;
import dev.compactor.log.policy.PolicyReplay.Stats;
import dev.compactor.log.store.CompactionRecord;
import dev.compactor.log.store.StoredArchive;
import dev.compactor.log.store.StoredConversation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The automatic policy on a {@link StoredConversation} (on disk, with its {@link StoredArchive} and
 * {@code compaction.jsonl} journal), replayed message by message with every invariant of {@link
 * PolicyReplay} checked after every message, and the conversation closed and reopened twice in the
 * middle: after each reopen the master log, views, active messages, journal and the failed-summary
 * latch are as before, and the replay goes on with a new policy instance. Every recovery reference
 * a stub or truncation names points at a saved file holding the removed text.
 */
class AutoCompactorStoredConversationTest {
  private static final Pattern SAVED = Pattern.compile("Full output saved to: (\\S+);");
  private static final Pattern TRUNCATION =
      Pattern.compile("\\[\\.\\.\\. \\d+ tokens truncated [^\\n]*\\.\\.\\.\\]");

  @TempDir Path dir;

  /**
   * Seeds with trims, summaries and reminders; 11, 17 and 23 with a failing summarizer (the latch).
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {11, 16, 17, 23, 38})
  void autoPolicy_onDisk_keepsEveryInvariant_acrossReopens(long seed) throws IOException {
    Scenario scenario = Scenario.of(seed);
    List<Message> messages = scenario.messages();
    List<Integer> reopenAt = List.of(messages.size() / 2, messages.size() * 3 / 4);
    Path conversationDir = dir.resolve("conv-" + seed);
    List<AppliedCompaction> reports = new ArrayList<>();
    Stats stats = new Stats();
    PolicyReplay.ReplayClock clock = new PolicyReplay.ReplayClock();

    StoredConversation conv = StoredConversation.open(conversationDir, clock.clock());
    try {
      int i = 0;
      for (int segment = 0; segment <= reopenAt.size(); segment++) {
        int end = segment < reopenAt.size() ? reopenAt.get(segment) : messages.size();
        StoredConversation c = conv;
        AutoCompactor auto =
            PolicyReplay.policy(
                c,
                scenario,
                clock.clock(),
                report -> {
                  c.journal().append(CompactionRecord.of(report));
                  reports.add(report);
                });
        PolicyContext ctx = scenario.context(new StoredArchive(c));
        PolicyReplay replay = new PolicyReplay(c, scenario, reports, stats);
        for (; i < end; i++) {
          replay.step(auto, messages, i, clock, ctx, scenario + " on disk", "");
        }
        checkJournalAndArchive(c, reports);
        if (segment < reopenAt.size()) {
          conv = reopen(c, auto.latched(), scenario, clock);
        }
      }
    } finally {
      conv.close();
    }
    System.out.printf("stored auto policy, %s: %s%n", scenario, stats);
    assertThat(stats.get(Event.TRIMMED) + stats.get(Event.SUMMARIZED))
        .as("compactions of seed %d", seed)
        .isPositive();
  }

  /** Closes and reopens, checking that everything came back as it was. */
  private static StoredConversation reopen(
      StoredConversation before,
      boolean latched,
      Scenario scenario,
      PolicyReplay.ReplayClock clock) {
    List<Message> master = before.master().messages();
    List<View> views = before.views();
    List<Message> active = before.activeMessages();
    List<CompactionRecord> journal = before.journal().entries();
    Path where = before.directory();
    before.close();

    StoredConversation after = StoredConversation.open(where, clock.clock());
    assertThat(after.master().messages()).as("master log after reopening").isEqualTo(master);
    assertThat(after.views()).as("views after reopening").isEqualTo(views);
    assertThat(after.activeMessages()).as("active messages after reopening").isEqualTo(active);
    // Compared as text: a number in extra may come back as another Number type (0L -> 0).
    assertThat(after.journal().entries().toString())
        .as("journal after reopening")
        .isEqualTo(journal.toString());
    AutoCompactor fresh = PolicyReplay.policy(after, scenario, clock.clock(), r -> {});
    assertThat(fresh.latched()).as("failed-summary latch after reopening").isEqualTo(latched);
    return after;
  }

  private static void checkJournalAndArchive(StoredConversation c, List<AppliedCompaction> reports)
      throws IOException {
    List<CompactionRecord> journal = c.journal().entries();
    assertThat(journal).hasSameSizeAs(reports);
    for (int k = 0; k < journal.size(); k++) {
      CompactionRecord rec = journal.get(k);
      AppliedCompaction rep = reports.get(k);
      assertThat(rec.viewId()).isEqualTo(rep.viewId());
      assertThat(rec.strategy()).isEqualTo(rep.strategy());
      assertThat(rec.tokensBefore()).isEqualTo(rep.tokensBefore());
      assertThat(rec.tokensAfter()).isEqualTo(rep.tokensAfter());
    }
    for (ViewEntry e : c.activeView().entries()) {
      if (e instanceof ViewEntry.Synthesized s && s.covers().size() == 1) {
        Matcher m = SAVED.matcher(s.message().content());
        if (m.find()) {
          Path file = c.directory().resolve(m.group(1));
          assertThat(file).as("saved output of %s", s.message().id()).isRegularFile();
          String original = c.recover(s.message().id()).get(0).content();
          // A stub of an output truncated before saves the truncated text: head and tail of the
          // original around a marker whose own reference holds the middle.
          for (String part : TRUNCATION.split(Files.readString(file))) {
            assertThat(original).as("%s saved text", s.message().id()).contains(part.strip());
          }
        }
      }
    }
  }
}
