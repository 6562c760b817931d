package dev.compactor.log.imports;

import static dev.compactor.log.imports.Fixtures.jsonl;
import static dev.compactor.log.imports.Fixtures.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inline {@code <think>} blocks of imported gptme content are reasoning: trim never rewrites them.
 */
class GptmeThinkBlocksTrimTest {
  @TempDir Path dir;

  private static Map<String, Object> msg(String role, String content) {
    return obj("role", role, "content", content, "timestamp", "2026-01-01T10:00:00+00:00");
  }

  @Test
  void anImportedMessageWithAThinkBlock_isNeverCompressed() throws Exception {
    String prose = "The totals drift by a cent because rounding happens last. ".repeat(120);
    String thinking =
        "<think>\nLet me reason about the rounding. " + prose + "\n</think>\n" + prose;
    Path p =
        Fixtures.writeGzip(
            dir,
            "conversation.jsonl.gz",
            jsonl(
                List.of(
                    msg("system", "You are gptme."),
                    msg("user", "Why are the totals off?"),
                    msg("assistant", thinking),
                    msg("user", "ok"),
                    msg("assistant", "Done."),
                    msg("user", "thanks"))));
    List<Message> m = Importers.read(p).single().messages();
    assertThat(m.get(2).content()).isEqualTo(thinking);
    CompressionConfig c = CompressionConfig.builder().counter(TokenCounters.estimate()).build();
    TrimProvider trim = new TrimProvider();
    assertThat(trim.compress(m, c).messages().get(2)).isEqualTo(m.get(2));
    assertThat(trim.estimateSavings(m, c).ratio()).isZero();
  }
}
