package dev.compactor.bench.replay;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.replay.NamedReplayStrategy;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The observation-masking peers of the table, re-implemented to check that our metric
 * definitions reproduce its figures. They rewrite one message list in place, as the peer agents do
 * (no views), and their placeholders are {@link MaskProvider}'s without code names (which name up
 * to 8 identifiers of the output; the peers' placeholders may be barer, which would lower their
 * recall and input a little).
 */
final class PeerMasking {
  private PeerMasking() {}

  /** Masks, after every turn, the outputs older than the last 10 on a grid of {@code batch}. */
  static ReplaySession everyTurn(ReplaySetup setup, int batch) {
    ContextProvider mask = ProviderRegistry.global().get(MaskProvider.NAME);
    CompressionConfig cfg =
        CompressionConfig.builder()
            .counter(setup.counter())
            .extraConfig(
                Map.of(
                    MaskProvider.KEEP_LAST,
                    10,
                    MaskProvider.BATCH,
                    batch,
                    MaskProvider.MIN_TOKENS,
                    0,
                    MaskProvider.NAMES,
                    0))
            .build();
    return new ListSession() {
      @Override
      public void afterTurn() {
        CompactionResult r = mask.compress(messages, cfg);
        if (!r.provenance().isEmpty()) {
          replace(setup, r.messages());
        }
      }
    };
  }

  /**
   * When the context reaches the budget, masks the oldest unmasked outputs (not those of the last
   * step) until it is at 70 % of the budget or nothing is left to mask; masks are kept.
   */
  static ReplaySession toTarget(ReplaySetup setup) {
    return new ListSession() {
      @Override
      public void afterTurn() {
        long tokens = setup.counter().countMessages(messages);
        if (tokens < setup.budgetTokens()) {
          return;
        }
        long target = (long) (0.7 * setup.budgetTokens());
        int lastStep = messages.size() - 1;
        while (lastStep >= 0 && messages.get(lastStep).role() != Role.ASSISTANT) {
          lastStep--;
        }
        List<Message> next = new ArrayList<>(messages);
        for (int i = 0; i < lastStep && tokens > target; i++) {
          Message m = next.get(i);
          if (m.role() != Role.TOOL || m.content().startsWith(MaskProvider.PLACEHOLDER_PREFIX)) {
            continue;
          }
          int before = setup.counter().countMessage(m);
          Message masked =
              m.toBuilder()
                  .id(m.id().value() + "~masked")
                  .content(
                      MaskProvider.placeholder(
                          setup.counter().countText(m.content()), List.of(), ""))
                  .build();
          int after = setup.counter().countMessage(masked);
          if (after < before) {
            next.set(i, masked);
            tokens -= before - after;
          }
        }
        if (!next.equals(messages)) {
          replace(setup, next);
        }
      }
    };
  }

  /** A session over one mutable list. */
  private abstract static class ListSession implements ReplaySession {
    final List<Message> messages = new ArrayList<>();

    @Override
    public void append(Message recorded) {
      if (!recorded.uiOnly()) {
        messages.add(recorded);
      }
    }

    @Override
    public List<Message> view() {
      return messages;
    }

    void replace(ReplaySetup setup, List<Message> next) {
      long before = setup.counter().countMessages(messages);
      messages.clear();
      messages.addAll(next);
      setup.events().compacted("mask", before, setup.counter().countMessages(messages));
    }
  }

  /** A peer strategy: its name, its description and how it starts a session. */
  private abstract static class Peer extends NamedReplayStrategy {
    private final Function<ReplaySetup, ReplaySession> start;

    Peer(String name, String description, Function<ReplaySetup, ReplaySession> start) {
      super(name, description);
      this.start = start;
    }

    @Override
    public final ReplaySession start(ReplaySetup setup) {
      return start.apply(setup);
    }
  }

  /** {@code peer-mask-every-turn}: all but the last 10 outputs masked, every turn. */
  public static final class EveryTurn extends Peer {
    /** The {@link java.util.ServiceLoader} constructor. */
    public EveryTurn() {
      super(
          "peer-mask-every-turn",
          "peer: masking all but the last 10 tool outputs, every turn",
          setup -> everyTurn(setup, 1));
    }
  }

  /** {@code peer-mask-to-70}: oldest outputs masked when over budget, down to 70 %. */
  public static final class ToTarget extends Peer {
    /** The {@link java.util.ServiceLoader} constructor. */
    public ToTarget() {
      super(
          "peer-mask-to-70",
          "peer: masking oldest outputs only when over budget, down to 70 %, masks kept",
          PeerMasking::toTarget);
    }
  }

  /** {@code peer-mask-batched}: outputs older than the last 10 masked in batches of 10. */
  public static final class Batched extends Peer {
    /** The {@link java.util.ServiceLoader} constructor. */
    public Batched() {
      super(
          "peer-mask-batched",
          "peer: masking outputs older than the last 10 in batches of 10, every turn",
          setup -> everyTurn(setup, 10));
    }
  }
}
