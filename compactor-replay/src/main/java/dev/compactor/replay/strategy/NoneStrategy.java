package dev.compactor.replay.strategy;

import dev.compactor.core.message.Message;
import dev.compactor.replay.NamedReplayStrategy;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * {@code none}: never compacts; every call sends the whole conversation, as with an infinite
 * window. The cost baseline, and the definition of recall 1.
 */
public final class NoneStrategy extends NamedReplayStrategy {
  /** The registered name. */
  public static final String NAME = "none";

  /** The {@link java.util.ServiceLoader} constructor. */
  public NoneStrategy() {
    super(
        NAME,
        "no compaction: the whole conversation every call (infinite window; the cost baseline)");
  }

  @Override
  public ReplaySession start(ReplaySetup setup) {
    return new ReplaySession() {
      private final List<Message> messages = new ArrayList<>();
      private final List<Message> view = Collections.unmodifiableList(messages);

      @Override
      public void append(Message recorded) {
        if (!recorded.uiOnly()) {
          messages.add(recorded);
        }
      }

      @Override
      public void afterTurn() {}

      @Override
      public List<Message> view() {
        return view;
      }
    };
  }
}
