package dev.compactor.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A counter shared by many threads (a server counting many conversations at once) gives every
 * message the count a counter of its own gives it: the per-message cache is striped, and a message
 * counted on one thread is found by the others.
 */
class CachingTokenCounterConcurrencyTest {
  private static List<Message> conversation(Random random, int n) {
    List<Message> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      StringBuilder text = new StringBuilder();
      for (int w = random.nextInt(200); w >= 0; w--) {
        text.append("word").append(random.nextInt(5000)).append(w % 7 == 0 ? ".\n" : " ");
      }
      out.add(i % 2 == 0 ? Message.user(text.toString()) : Message.assistant(text.toString()));
    }
    return out;
  }

  @Test
  void manyThreadsCountingOverlappingConversations_getTheCountsOfAFreshCounter() throws Exception {
    Random random = new Random(7);
    List<Message> shared = conversation(random, 40);
    List<List<Message>> conversations = new ArrayList<>();
    for (int c = 0; c < 16; c++) {
      List<Message> conv = new ArrayList<>(shared);
      conv.addAll(conversation(random, 30));
      conversations.add(conv);
    }
    TokenCounter counter = TokenCounters.o200k();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<int[]>> each = new ArrayList<>();
      List<Future<Integer>> single = new ArrayList<>();
      for (List<Message> conv : conversations) {
        each.add(pool.submit(() -> counter.countEach(conv)));
        single.add(pool.submit(() -> counter.countMessage(conv.get(conv.size() - 1))));
      }
      for (int c = 0; c < conversations.size(); c++) {
        List<Message> conv = conversations.get(c);
        TokenCounter fresh = TokenCounters.o200k();
        int[] expected = conv.stream().mapToInt(fresh::countMessage).toArray();
        assertThat(each.get(c).get()).as("conversation " + c).containsExactly(expected);
        assertThat(single.get(c).get()).isEqualTo(expected[expected.length - 1]);
        assertThat(counter.countEach(conv))
            .as("cached, conversation " + c)
            .containsExactly(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
