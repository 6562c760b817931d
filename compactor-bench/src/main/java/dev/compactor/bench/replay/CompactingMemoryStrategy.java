package dev.compactor.bench.replay;

import dev.compactor.core.Compactor;
import dev.compactor.core.compaction.summary.ExtractiveSummarizer;
import dev.compactor.core.message.Message;
import dev.compactor.langchain4j.CompactingChatMemory;
import dev.compactor.replay.NamedReplayStrategy;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;
import dev.compactor.replay.strategy.CountingSummarizer;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code lc4j-compacting}: what a LangChain4j application gets by switching its memory to {@link
 * CompactingChatMemory}. Each recorded message is handed to the memory as an application would (the
 * same conversion as the {@code window} peer, {@link TokenWindowStrategy}), the memory runs
 * Compactor's default policy (the 90 % reminder off, as a framework memory should), and the view
 * sent is the memory's. Summaries are the offline extractive ones, counted like the other
 * strategies'.
 */
public final class CompactingMemoryStrategy extends NamedReplayStrategy {
  /** The registered name. */
  public static final String NAME = "lc4j-compacting";

  /** The {@link java.util.ServiceLoader} constructor. */
  public CompactingMemoryStrategy() {
    super(
        NAME,
        "LangChain4j with Compactor's CompactingChatMemory: the default policy behind the"
            + " ChatMemory interface");
  }

  @Override
  public ReplaySession start(ReplaySetup setup) {
    Compactor compactor =
        Compactor.forModel(setup.model())
            .contextWindow(setup.window())
            .maxOutputTokens(setup.maxOutput())
            .budget(Long.toString(setup.budgetTokens()))
            .counter(setup.counter())
            .summarizer(
                new CountingSummarizer(new ExtractiveSummarizer(), setup.counter(), setup.events()))
            .clock(setup.clock())
            .reminder(false)
            .listener(r -> setup.events().compacted(NAME, r.tokensBefore(), r.tokensAfter()))
            .build();
    CompactingChatMemory memory = CompactingChatMemory.builder().compactor(compactor).build();
    return new ReplaySession() {
      private final RecordedMessages toChat = new RecordedMessages();
      private final List<ChatMessage> pending = new ArrayList<>();
      private SystemMessage system;
      private Message systemMessage;

      @Override
      public void append(Message recorded) {
        if (!recorded.uiOnly()) {
          pending.add(toChat.apply(recorded));
        }
      }

      @Override
      public void afterTurn() {
        for (ChatMessage c : pending) {
          memory.add(c);
        }
        pending.clear();
      }

      @Override
      public List<Message> view() {
        afterTurn();
        List<Message> out = new ArrayList<>();
        for (ChatMessage m : memory.messages()) {
          if (m instanceof SystemMessage s) {
            if (!s.equals(system)) { // one Message per system text, so the cached prefix holds
              system = s;
              systemMessage = Message.system(s.text());
            }
            out.add(systemMessage);
          }
        }
        out.addAll(memory.session().messages());
        return out;
      }
    };
  }
}
