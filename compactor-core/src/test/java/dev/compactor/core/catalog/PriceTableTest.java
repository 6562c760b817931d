package dev.compactor.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Usage;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class PriceTableTest {
  private final PriceTable prices = PriceTable.builtIn();

  @Test
  void cost_addsUncachedCachedWrittenAndOutputTokens() {
    // claude-sonnet-4-5: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million.
    Usage u = new Usage(1_000_000, 100_000, 2_000_000, 10_000, 0);
    assertThat(prices.cost("anthropic/claude-sonnet-4-5", u))
        .hasValueSatisfying(
            c ->
                assertThat(c)
                    .isEqualByComparingTo(
                        new BigDecimal("3.0375")
                            .add(new BigDecimal("1.5"))
                            .add(new BigDecimal("0.6"))));
  }

  @Test
  void lookup_resolvesDatedVersionsAliasesAndProviderPrefixes_throughTheCatalog() {
    assertThat(prices.find("openai/gpt-4o-2024-08-06")).isEqualTo(prices.find("openai/gpt-4o"));
    assertThat(prices.find("gpt-4o-mini")).isEqualTo(prices.find("openai/gpt-4o-mini"));
    assertThat(prices.find("openrouter/openai/gpt-4o")).isEqualTo(prices.find("openai/gpt-4o"));
    assertThat(prices.find("OpenAI/GPT-5")).isPresent();
  }

  @Test
  void localServersCostNothing_unknownModelsHaveNoPrice() {
    assertThat(prices.cost("ollama/llama3.1:8b", new Usage(1000, 1000, 0, 0, 0)))
        .hasValueSatisfying(c -> assertThat(c).isZero());
    assertThat(prices.cost("openai-compatible/mystery", new Usage(1, 1, 0, 0, 0))).isEmpty();
    assertThat(prices.cost("openai/gpt-5", null)).isEmpty();
    assertThat(prices.find(" ")).isEmpty();
  }

  @Test
  void dashMeansSameAsInput_andMalformedLinesNameTheirLine() {
    PriceTable t = PriceTable.parse("x/y 2 - - 8\n", "test", ModelCatalog.empty());
    assertThat(t.find("x/y").orElseThrow().cachedInput()).isEqualByComparingTo("2");
    assertThatThrownBy(() -> PriceTable.parse("# c\nx/y 2 3 4\n", "test.tsv", ModelCatalog.empty()))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("test.tsv line 2");
    assertThatThrownBy(() -> PriceTable.parse("x/y 2 a 3 4\n", "t", ModelCatalog.empty()))
        .isInstanceOf(CompactorException.class);
  }

  @Test
  void with_addsOrReplacesAPrice() {
    PriceTable t =
        PriceTable.empty()
            .with(
                "corp/model",
                new ModelPrice(BigDecimal.ONE, BigDecimal.ONE, BigDecimal.ONE, BigDecimal.TEN));
    assertThat(t.cost("corp/model", new Usage(1_000_000, 1_000_000, 0, 0, 0)))
        .hasValueSatisfying(c -> assertThat(c).isEqualByComparingTo("11"));
  }

  @Test
  void threeColumnRows_defaultRow_bareNamesAndVersions() {
    PriceTable t =
        PriceTable.parse(
            "default 3 15\nacme/widget 1 2\nacme/widget-pro 4 8\n", "t", ModelCatalog.empty());
    assertThat(t.hasDefault()).isTrue();
    assertThat(t.find("acme/widget").orElseThrow().cachedInput()).isEqualByComparingTo("1");
    assertThat(t.entry("other/widget")).hasValue("acme/widget");
    assertThat(t.entry("widget-pro-2025-01-01")).hasValue("acme/widget-pro");
    assertThat(t.entry("widget:latest")).hasValue("acme/widget");
    assertThat(t.entry("acme/unknown")).hasValue(PriceTable.DEFAULT);
    assertThat(t.entry(null)).hasValue(PriceTable.DEFAULT);
    assertThat(PriceTable.empty().entry("acme/widget")).isEmpty();
    assertThatThrownBy(() -> PriceTable.parse("a/b 1 2\na/b 1 2\n", "t", ModelCatalog.empty()))
        .hasMessageContaining("t line 2")
        .hasMessageContaining("listed twice");
  }
}
