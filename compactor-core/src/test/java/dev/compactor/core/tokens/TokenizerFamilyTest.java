package dev.compactor.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TokenizerFamilyTest {

  @ParameterizedTest
  @CsvSource({
    "gpt-4o, O200K_BASE",
    "openai/gpt-4o-mini-2024-07-18, O200K_BASE",
    "openrouter/openai/gpt-4.1, O200K_BASE",
    "gpt-5-nano, O200K_BASE",
    "o1, O200K_BASE",
    "o3-mini, O200K_BASE",
    "openai/o4-mini-2025-04-16, O200K_BASE",
    "chatgpt-4o-latest, O200K_BASE",
    "ollama/gpt-oss:20b, O200K_BASE",
    "openai/some-future-model, O200K_BASE",
    "gpt-4, CL100K_BASE",
    "gpt-4-turbo, CL100K_BASE",
    "azure/gpt-35-turbo, CL100K_BASE",
    "openai/gpt-3.5-turbo, CL100K_BASE",
    "text-embedding-3-small, CL100K_BASE",
    "anthropic/claude-sonnet-4-5, ESTIMATE",
    "gemini-2.5-pro, ESTIMATE",
    "ollama/llama3.1:8b, ESTIMATE",
    "o1x, ESTIMATE",
    "ollama/olmo2, ESTIMATE",
    "something-unknown, ESTIMATE"
  })
  void forModel_mapsModelNamesToFamilies(String model, TokenizerFamily expected) {
    assertThat(TokenizerFamily.forModel(model)).isEqualTo(expected);
  }

  @Test
  void forModel_nullOrBlank_isEstimate() {
    assertThat(TokenizerFamily.forModel(null)).isEqualTo(TokenizerFamily.ESTIMATE);
    assertThat(TokenizerFamily.forModel(" ")).isEqualTo(TokenizerFamily.ESTIMATE);
  }

  @Test
  void parse_acceptsWireNamesAndRejectsOthersNamingThem() {
    assertThat(TokenizerFamily.parse("O200K_base")).isEqualTo(TokenizerFamily.O200K_BASE);
    assertThatThrownBy(() -> TokenizerFamily.parse("p50k"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"p50k\"");
  }
}
