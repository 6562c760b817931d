package dev.compactor.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.compaction.fixtures.RecordingArchive;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code shouldCompress} and {@code compress} agree at the boundary (tokens == limit) for every
 * built-in provider: a view of exactly {@code limit} tokens fits, so none asks to compress it, and
 * one token more is over it.
 */
class BoundaryAgreementTest {
  private static final TokenCounter COUNTER = TokenCounters.estimate();

  private static List<Message> session() {
    Conv c = new Conv().system("You are a coding agent.").user("Fix the failing build.");
    for (int i = 0; i < 30; i++) {
      c.tool("shell", "{\"command\":\"make step" + i + "\"}", Conv.lines("out" + i + "-", 80));
      c.assistant("Step " + i + " done; the build log is above.");
    }
    return c.user("Thanks, go on.").build();
  }

  private static CompressionConfig config(long limit) {
    return CompressionConfig.builder()
        .counter(COUNTER)
        .archive(new RecordingArchive())
        .limit((int) limit)
        .trimTargetRatio(1.0)
        .extraConfig(Map.of("keep_last", 1, "batch", 1))
        .build();
  }

  @Test
  void everyBuiltInProvider_agreesAtTheBoundary() {
    List<Message> m = session();
    long tokens = COUNTER.countMessages(m);
    for (String name : List.of("trim", "mask", "summarize")) {
      ContextProvider p = ProviderRegistry.global().get(name);
      assertThat(p.shouldCompress(m, config(tokens))).as("%s at the limit", name).isFalse();
      assertThat(p.shouldCompress(m, config(tokens - 1))).as("%s over the limit", name).isTrue();
      CompactionResult atLimit = p.compress(m, config(tokens));
      assertThat(COUNTER.countMessages(atLimit.messages()))
          .as("%s at the limit stays within it", name)
          .isLessThanOrEqualTo(tokens);
    }
    ContextProvider trim = ProviderRegistry.global().get("trim");
    assertThat(trim.compress(m, config(tokens)).messages()).isEqualTo(m);
    assertThat(COUNTER.countMessages(trim.compress(m, config(tokens - 1)).messages()))
        .isLessThanOrEqualTo(tokens - 1);
  }
}
