package dev.compactor.replay.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.PriceTable;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScorecardPricesTest {
  private final PriceTable prices = ScorecardPrices.builtIn();

  @Test
  void find_exactBareDatedAndUnknown() {
    assertThat(Price.of(prices, "openai/gpt-4o").inputPerMillion()).isEqualTo(2.50);
    assertThat(Price.of(prices, "gpt-4o").model()).isEqualTo("openai/gpt-4o");
    assertThat(Price.of(prices, "gpt-4o-mini-2024-07-18").model()).isEqualTo("openai/gpt-4o-mini");
    assertThat(Price.of(prices, "deepseek-chat").model()).isEqualTo("deepseek/deepseek-chat");
    assertThat(Price.of(prices, "acme/unknown").model()).isEqualTo(PriceTable.DEFAULT);
    assertThat(Price.of(prices, null).model()).isEqualTo(PriceTable.DEFAULT);
  }

  @Test
  void cacheModels_billReadsAtTenPercentAndAnthropicWritesAt125() {
    Price p = new Price("x", 1.0, 5.0); // $1 per million input tokens
    assertThat(CacheModel.OPENAI.inputCost(p, 1_000_000, 600_000)).isCloseTo(0.46, within(1e-9));
    assertThat(CacheModel.ANTHROPIC.inputCost(p, 1_000_000, 600_000)).isCloseTo(0.56, within(1e-9));
    assertThatThrownBy(() -> CacheModel.OPENAI.inputCost(p, 10, 11))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void read_invalidLineNamesFileAndLine(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("p.tsv");
    Files.writeString(f, "# prices\ndefault 3 15\nacme/x 1\n");
    assertThatThrownBy(() -> ScorecardPrices.read(f))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("line 3");
    Files.writeString(f, "acme/x 1 2\n");
    assertThatThrownBy(() -> ScorecardPrices.read(f)).hasMessageContaining("no \"default\" line");
    Files.writeString(f, "default 3 15\nacme/x 1 2\n");
    assertThat(Price.of(ScorecardPrices.read(f), "x").outputPerMillion()).isEqualTo(2.0);
  }
}
