package dev.compactor.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.tokens.TokenizerFamily;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ModelCatalogTest {
  private final ModelCatalog catalog = ModelCatalog.builtIn();

  @Test
  void builtIn_coversTheCommonFamilies() {
    for (String id :
        new String[] {
          "openai/gpt-4o",
          "openai/gpt-4o-mini",
          "openai/gpt-4.1",
          "openai/gpt-5",
          "openai/gpt-5-mini",
          "openai/o3",
          "openai/o4-mini",
          "anthropic/claude-opus-4-1",
          "anthropic/claude-sonnet-4-5",
          "anthropic/claude-haiku-4-5",
          "anthropic/claude-3-7-sonnet",
          "anthropic/claude-3-5-sonnet",
          "google/gemini-2.5-pro",
          "google/gemini-2.5-flash",
          "google/gemini-2.0-flash",
          "ollama/llama3.1",
          "ollama/qwen2.5-coder",
          "ollama/mistral"
        }) {
      assertThat(catalog.find(id)).as(id).hasValueSatisfying(m -> assertThat(m.id()).isEqualTo(id));
    }
  }

  @Test
  void builtIn_bareNamesAreUnique_andEveryEntryIsSane() {
    Set<String> names = new HashSet<>();
    for (ModelInfo m : catalog.models()) {
      assertThat(names.add(m.name())).as("duplicate bare name %s", m.name()).isTrue();
      assertThat(m.contextWindow()).as(m.id()).isGreaterThanOrEqualTo(m.maxOutputTokens());
      assertThat(m.windowSource()).isEqualTo(ModelCatalog.SOURCE_CATALOG);
      assertThat(m.tokenizer()).as(m.id()).isEqualTo(TokenizerFamily.forModel(m.id()));
    }
  }

  @Test
  void builtIn_nativeMillionTokenAnthropicModels_carryBudget09() {
    ModelInfo m = catalog.lookup("claude-opus-4-6");
    assertThat(m.contextWindow()).isEqualTo(1_000_000);
    assertThat(m.contextBudget()).hasValue(0.9);
    assertThat(m.windowValidated()).isTrue();
    assertThat(catalog.lookup("anthropic/claude-sonnet-4-5").contextBudget()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
    "gpt-4o, openai/gpt-4o",
    "GPT-4o, openai/gpt-4o",
    "openai/gpt-4o-2024-08-06, openai/gpt-4o",
    "gpt-4o-mini-2024-07-18, openai/gpt-4o-mini",
    "chatgpt-4o-latest, openai/gpt-4o",
    "azure/gpt-4o, openai/gpt-4o",
    "openrouter/openai/gpt-4.1-mini, openai/gpt-4.1-mini",
    "o4-mini-2025-04-16, openai/o4-mini",
    "o3-mini, openai/o3-mini",
    "gpt-4-0613, openai/gpt-4",
    "gpt-4-turbo-2024-04-09, openai/gpt-4-turbo",
    "claude-sonnet-4-5-20250929, anthropic/claude-sonnet-4-5",
    "claude-sonnet-4-5@20250929, anthropic/claude-sonnet-4-5",
    "claude-sonnet-4-20250514, anthropic/claude-sonnet-4",
    "claude-opus-4-1-20250805, anthropic/claude-opus-4-1",
    "claude-3-5-sonnet-latest, anthropic/claude-3-5-sonnet",
    "claude-3.5-sonnet, anthropic/claude-3-5-sonnet",
    "openrouter/anthropic/claude-3.7-sonnet, anthropic/claude-3-7-sonnet",
    "gemini/gemini-2.5-pro, google/gemini-2.5-pro",
    "gemini-2.0-flash-001, google/gemini-2.0-flash",
    "llama3.1:8b, ollama/llama3.1",
    "ollama/llama3:70b, ollama/llama3",
    "local/qwen2.5-coder:32b, ollama/qwen2.5-coder"
  })
  void lookup_exactBareAliasPrefixAndProviderStripping(String query, String expectedId) {
    assertThat(catalog.lookup(query).id()).isEqualTo(expectedId);
  }

  @Test
  void lookup_unknownModel_getsDocumentedDefaults() {
    ModelInfo m = catalog.lookup("acme/rocket-1");
    assertThat(catalog.find("acme/rocket-1")).isEmpty();
    assertThat(m.id()).isEqualTo("acme/rocket-1");
    assertThat(m.provider()).isEqualTo("acme");
    assertThat(m.name()).isEqualTo("rocket-1");
    assertThat(m.contextWindow()).isEqualTo(128_000);
    assertThat(m.maxOutputTokens()).isEqualTo(8_192);
    assertThat(m.tokenizer()).isEqualTo(TokenizerFamily.ESTIMATE);
    assertThat(m.windowValidated()).isFalse();
    assertThat(m.windowSource()).isEqualTo("default for unknown models");
    assertThat(catalog.lookup("mystery").provider()).isEqualTo("unknown");
  }

  @Test
  void lookup_prefixNeedsAVersionSeparator() {
    assertThat(catalog.find("gpt-4ox")).isEmpty();
    assertThat(catalog.find("claude-sonnet-4x")).isEmpty();
  }

  @Test
  void lookup_blankName_fails() {
    assertThatThrownBy(() -> catalog.lookup(" ")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void contextLengthEnv_overridesTheWindow() {
    ModelInfo m = catalog.lookup("ollama/llama3.1", Map.of("COMPACTOR_CONTEXT_LENGTH", "32768"));
    assertThat(m.contextWindow()).isEqualTo(32_768);
    assertThat(m.windowSource()).isEqualTo("COMPACTOR_CONTEXT_LENGTH");
    assertThat(catalog.lookup("ollama/llama3.1", Map.of()).contextWindow()).isEqualTo(131_072);
    assertThat(ModelCatalog.parseContextLength("1_000_000", "x")).isEqualTo(1_000_000);
    assertThat(ModelCatalog.parseContextLength("32768.0", "x")).isEqualTo(32_768);
    assertThat(ModelCatalog.parseContextLength("1e6", "x")).isEqualTo(1_000_000);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-5", "abc", "", "  ", "1.5", "NaN", "inf", "Infinity", "8192x"})
  void contextLengthEnv_invalid_failsNamingValueAndSource(String bad) {
    assertThatThrownBy(() -> catalog.lookup("gpt-4o", Map.of(ModelCatalog.CONTEXT_LENGTH_ENV, bad)))
        .isInstanceOf(InvalidSettingException.class)
        .isInstanceOf(CompactorException.class)
        .hasMessageStartingWith("context length \"" + bad + "\" from COMPACTOR_CONTEXT_LENGTH ");
  }

  @Test
  void contextLengthEnv_zero_saysMustBePositive() {
    assertThatThrownBy(() -> ModelCatalog.parseContextLength("0", "COMPACTOR_CONTEXT_LENGTH"))
        .hasMessage("context length \"0\" from COMPACTOR_CONTEXT_LENGTH must be > 0");
  }

  @Test
  void with_addsAndReplacesModels() {
    ModelCatalog extended =
        catalog.with(
            ModelInfo.of("deepseek/deepseek-v4", 1_000_000, 32_000),
            ModelInfo.of("openai/gpt-4o", 64_000, 4_000));
    assertThat(extended.lookup("deepseek-v4").contextWindow()).isEqualTo(1_000_000);
    assertThat(extended.lookup("gpt-4o-2024-08-06").contextWindow()).isEqualTo(64_000);
    assertThat(extended.lookup("chatgpt-4o-latest").contextWindow()).isEqualTo(64_000);
    assertThat(extended.models()).hasSize(catalog.models().size() + 1);
    assertThat(catalog.lookup("gpt-4o").contextWindow()).isEqualTo(128_000); // immutable
  }

  @Test
  void withOverride_replacesWindowOrOutputKeepingTheRest() {
    String src = "models.\"anthropic/claude-sonnet-4-5\".context_window in config.toml";
    ModelCatalog c =
        catalog.withOverride(
            "anthropic/claude-sonnet-4-5", OptionalLong.of(1_000_000), OptionalInt.empty(), src);
    ModelInfo m = c.lookup("claude-sonnet-4-5-20250929");
    assertThat(m.contextWindow()).isEqualTo(1_000_000);
    assertThat(m.maxOutputTokens()).isEqualTo(64_000);
    assertThat(m.windowSource()).isEqualTo(src);

    ModelCatalog unknown =
        catalog.withOverride("acme/rocket", OptionalLong.empty(), OptionalInt.of(2048), "cfg");
    ModelInfo r = unknown.lookup("acme/rocket");
    assertThat(r.contextWindow()).isEqualTo(128_000);
    assertThat(r.maxOutputTokens()).isEqualTo(2048);
    assertThat(unknown.find("acme/rocket")).isPresent();
  }

  @Test
  void parse_malformedLine_failsNamingSourceAndLine() {
    String text = "# header\nopenai/x 1000 100 o200k_base no - -\nbad line\n";
    assertThatThrownBy(() -> ModelCatalog.parse(text, "my.tsv"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("my.tsv line 3")
        .hasMessageContaining("expected 7 columns");
    assertThatThrownBy(() -> ModelCatalog.parse("openai/x 1000 100 p50k no - -", "my.tsv"))
        .hasMessageContaining("my.tsv line 1")
        .hasMessageContaining("p50k");
    assertThatThrownBy(() -> ModelCatalog.parse("openai/x 1000 100 estimate no 1.5 -", "t"))
        .hasMessageContaining("t line 1")
        .hasMessageContaining("context budget");
    assertThatThrownBy(() -> ModelCatalog.parse("x 1000 100 estimate no - -", "t"))
        .hasMessageContaining("provider/model");
  }

  @Test
  void modelInfo_rejectsInvalidValues() {
    assertThatThrownBy(() -> ModelInfo.of("a/b", 0, 10)).hasMessageContaining("context window");
    assertThatThrownBy(() -> ModelInfo.of("a/b", 100, -1)).hasMessageContaining("max output");
    assertThatThrownBy(() -> ModelInfo.of("a/b", 100, 1).withContextBudget(300.5))
        .hasMessageContaining("context budget");
  }
}
