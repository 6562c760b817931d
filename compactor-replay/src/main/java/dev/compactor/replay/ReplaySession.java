package dev.compactor.replay;

import dev.compactor.core.message.Message;
import java.util.List;

/**
 * One conversation being replayed under one {@link ReplayStrategy}. Not thread-safe: the replay
 * calls it from one thread.
 */
public interface ReplaySession {

  /**
   * Adds the next recorded message, whatever the strategy did to the earlier ones: recorded
   * assistant messages and tool outputs are facts of the replay, not choices of the strategy.
   *
   * @param recorded never null
   */
  void append(Message recorded);

  /**
   * Runs the strategy's policy once, as it would run live after a turn (a response appended, or the
   * tool results or user message that answer it). May compact, and reports what it did to {@link
   * ReplaySetup#events()}. The replay measures the time spent here as compaction time.
   */
  void afterTurn();

  /**
   * The messages the next model call would send, oldest first, without {@code uiOnly} messages.
   * Messages the strategy added of its own (a reminder, a checkpoint) are part of it.
   *
   * @return a list the caller does not modify; never null
   */
  List<Message> view();
}
