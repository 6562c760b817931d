package dev.compactor.core.internal;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.ViewBuilder;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.Trigger;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.core.view.Violation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Turns a strategy's result into the conversation's new active view, the same way for every policy
 * (automatic, manual, overflow recovery): build the view, validate it (an invalid view is never
 * switched to), switch, measure, report to the listener and append a UI-only status message.
 *
 * <p>Thread-safety: as the conversation it is applied to; the applier itself holds no state.
 */
public final class CompactionApplier {
  /**
   * Metadata key ({@code metadata.extra}) of the UI-only status message appended after each
   * compaction; its value is the new view's id.
   */
  public static final String STATUS_KEY = "compaction_status";

  /**
   * Metadata key ({@code metadata.extra}) of the status message naming the strategy that made the
   * view (e.g. {@code trim}, {@code summarize}); only a successful summary lifts the automatic
   * policy's failed-summary latch.
   */
  public static final String STRATEGY_KEY = "compaction_strategy";

  private final ViewValidator validator = new ViewValidator();
  private final Clock clock;
  private final CompactionListener listener;

  /**
   * @param clock time source of reports and status messages
   * @param listener receives every applied compaction (e.g. the journal)
   */
  public CompactionApplier(Clock clock, CompactionListener listener) {
    this.clock = clock;
    this.listener = listener;
  }

  /**
   * Applies {@code result} (computed on {@code active}, the conversation's active messages): the
   * new view takes {@link Conversation#nextViewId()}, the listener gets the report, and a UI-only
   * status message is appended to the conversation.
   *
   * @param strategy the name reported (e.g. {@code trim})
   * @param tokensBefore measured context before
   * @param started when the compaction began (for the duration)
   * @param counter counts the new view's tokens
   * @throws CompactorException when the result would make an invalid view; nothing changes then
   */
  public AppliedCompaction apply(
      Conversation conversation,
      List<Message> active,
      CompactionResult result,
      String strategy,
      Trigger trigger,
      long tokensBefore,
      Instant started,
      TokenCounter counter) {
    View next =
        ViewBuilder.build(conversation.activeView(), active, result, conversation.nextViewId());
    List<Message> resolved = conversation.resolve(next);
    List<Violation> violations = validator.validate(resolved);
    if (!violations.isEmpty()) {
      throw new CompactorException(
          "strategy "
              + strategy
              + " produced an invalid view; keeping "
              + conversation.activeView().id()
              + ": "
              + violations.stream()
                  .limit(3)
                  .map(Violation::toString)
                  .collect(Collectors.joining("; ")));
    }
    conversation.switchTo(next);
    long tokensAfter = counter.countMessages(resolved);
    AppliedCompaction report =
        new AppliedCompaction(
            clock.instant(),
            trigger,
            strategy,
            tokensBefore,
            tokensAfter,
            visible(active),
            visible(resolved),
            Duration.between(started, clock.instant()),
            next.id(),
            result.limitations());
    listener.compacted(report);
    String status =
        String.format(
            "Compacted with %s (%s): %,d → %,d tokens, %d → %d messages; view %s.",
            strategy,
            trigger.wireName(),
            tokensBefore,
            tokensAfter,
            report.messagesBefore(),
            report.messagesAfter(),
            next.id());
    conversation.append(
        Message.builder(Role.SYSTEM)
            .id(MessageId.appended("compaction", conversation.master().size(), status))
            .content(status)
            .timestamp(clock.instant())
            .uiOnly(true)
            .hidden(true)
            .metadata(
                new MessageMetadata(
                    null, null, null, null, Map.of(STATUS_KEY, next.id(), STRATEGY_KEY, strategy)))
            .build());
    return report;
  }

  /** The messages a model sees: all but {@code uiOnly} ones. */
  public static int visible(List<Message> messages) {
    int n = 0;
    for (Message m : messages) {
      if (!m.uiOnly()) {
        n++;
      }
    }
    return n;
  }
}
