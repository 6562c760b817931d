package dev.compactor.replay;

/**
 * A way of keeping a conversation's context in check, replayed on recorded conversations: our
 * policies and strategies, or a peer library's chat memory.
 *
 * <p>Contract: {@link #start} returns a fresh {@link ReplaySession} for one conversation; the
 * replay then feeds it the recorded messages in order, lets it run after every turn and asks for
 * the view before every model call. A strategy must be thread-safe (one instance serves sessions on
 * several threads); sessions need not be. Strategies that claim to keep within the budget must
 * produce views that fit {@link ReplaySetup#budgetTokens()} and pass {@link
 * dev.compactor.core.view.ViewValidator}: the scorecard counts every call that does not.
 *
 * <p>Found by name through {@link ReplayStrategies}: the built-ins ({@code none}, {@code mask},
 * {@code trim}, {@code summarize}, {@code auto}) and any class listed in {@code
 * META-INF/services/dev.compactor.replay.ReplayStrategy} (public, with a public no-argument
 * constructor), such as the LangChain4j peer {@code window} of {@code compactor-bench}.
 *
 * <pre>{@code
 * ReplayStrategy s = ReplayStrategies.find("auto");
 * ReplaySession session = s.start(setup);
 * session.append(message);     // every recorded message, in order
 * session.afterTurn();         // after each turn, as a live policy runs
 * List<Message> sent = session.view(); // before each model call
 * }</pre>
 */
public interface ReplayStrategy {

  /** Unique name used on the command line and in reports, e.g. {@code auto}. */
  String name();

  /** One line saying what the strategy does, for {@code --help} and reports. */
  String description();

  /**
   * Starts replaying one conversation.
   *
   * @param setup model, counter, budget, window, clock and the event sink of this replay; never
   *     null
   * @return a new session; never null
   */
  ReplaySession start(ReplaySetup setup);

  /**
   * Whether the replayed agent is offered the recovery tool {@code recall_output(id)} ({@link
   * dev.compactor.core.recovery.RecallTool}): when a call needs a fact that only a masked output of
   * its view held, the replay adds the round trip that recalls it (see {@code docs/replay.md}).
   * False by default.
   */
  default boolean recallTool() {
    return false;
  }
}
