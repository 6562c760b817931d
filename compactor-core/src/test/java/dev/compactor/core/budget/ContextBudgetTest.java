package dev.compactor.core.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContextBudgetTest {

  private static ModelInfo model(long window, int maxOutput) {
    return ModelInfo.of("test/model", window, maxOutput);
  }

  private static ResolvedBudget resolve(BudgetInputs.Builder b) {
    return ContextBudget.resolve(b.build());
  }

  // --- the default: min(0.9 × window, window − max_output − headroom, 256k), floor 1000 ---

  @Test
  void default_200kWindow_is180000() {
    ResolvedBudget b = resolve(BudgetInputs.builder(model(200_000, 8_192)));
    assertThat(b.tokens()).isEqualTo(180_000);
    assertThat(b.source()).isEqualTo("default");
    assertThat(b.window()).isEqualTo(200_000);
    assertThat(b.maxOutput()).isEqualTo(8_192);
    assertThat(b.windowSource()).isEqualTo("model catalog");
  }

  @Test
  void default_200kWindowWith64kOutput_is135000() {
    assertThat(resolve(BudgetInputs.builder(model(200_000, 64_000))).tokens()).isEqualTo(135_000);
  }

  @Test
  void default_8192Window_is1000() {
    assertThat(resolve(BudgetInputs.builder(model(8_192, 8_192))).tokens()).isEqualTo(1_000);
  }

  @Test
  void default_500Window_is500() {
    assertThat(resolve(BudgetInputs.builder(model(500, 8_192))).tokens()).isEqualTo(500);
  }

  @Test
  void default_unvalidated1MWindow_is256k() {
    ResolvedBudget b = resolve(BudgetInputs.builder(model(1_000_000, 64_000)));
    assertThat(b.tokens()).isEqualTo(256_000);
    assertThat(b.source()).isEqualTo("default");
  }

  @Test
  void default_floorNeverExceedsTheCeiling() {
    // ceiling 1200 - 100 - 1000 = 100
    assertThat(resolve(BudgetInputs.builder(model(1_200, 100))).tokens()).isEqualTo(100);
    assertThat(ContextBudget.defaultBudget(1, 0, 1000)).isEqualTo(1);
  }

  // --- model metadata ---

  @Test
  void metadata_optOut09_onNative1MModel_isClampedToTheCeiling() {
    ModelInfo opus = ModelCatalog.builtIn().lookup("anthropic/claude-opus-4-6"); // 1M, 128k out
    ResolvedBudget b = resolve(BudgetInputs.builder(opus));
    assertThat(b.source()).isEqualTo("model metadata");
    assertThat(b.tokens()).isEqualTo(1_000_000 - 128_000 - 1_000);

    ModelInfo sonnet = ModelCatalog.builtIn().lookup("claude-sonnet-4-6"); // 1M, 64k out
    assertThat(resolve(BudgetInputs.builder(sonnet)).tokens()).isEqualTo(900_000);
  }

  // --- explicit and configured values ---

  @Test
  void env10_with64kOutputOn200k_isClampedTo135000() {
    ResolvedBudget b =
        resolve(
            BudgetInputs.builder(model(200_000, 64_000))
                .env(Map.of("COMPACTOR_CONTEXT_BUDGET", "1.0")));
    assertThat(b.tokens()).isEqualTo(135_000);
    assertThat(b.source()).isEqualTo("COMPACTOR_CONTEXT_BUDGET");
  }

  @Test
  void env05_on500WindowWithNoReserve_is250() {
    ResolvedBudget b =
        resolve(
            BudgetInputs.builder(model(500, 0))
                .headroom(0)
                .env(Map.of("COMPACTOR_CONTEXT_BUDGET", "0.5")));
    assertThat(b.tokens()).isEqualTo(250);
  }

  @Test
  void projectOverUser_08Over07_on200k_is160000() {
    ResolvedBudget b =
        resolve(
            BudgetInputs.builder(model(200_000, 8_192))
                .project(BudgetSetting.of("0.8", "[context] budget in ./compactor.toml"))
                .user(
                    BudgetSetting.of(
                        "0.7", "[context] budget in ~/.config/compactor/config.toml")));
    assertThat(b.tokens()).isEqualTo(160_000);
    assertThat(b.source()).isEqualTo("[context] budget in ./compactor.toml");
  }

  @Test
  void userLayer_appliesWhenNoProjectValue() {
    ResolvedBudget b =
        resolve(
            BudgetInputs.builder(model(200_000, 8_192))
                .user(
                    BudgetSetting.of(
                        "0.7", "[context] budget in ~/.config/compactor/config.toml")));
    assertThat(b.tokens()).isEqualTo(140_000);
  }

  @Test
  void layers_firstMatchWins_inDocumentedOrder() {
    ModelInfo m = model(1_000_000, 8_192).withContextBudget(0.95);
    BudgetInputs.Builder all =
        BudgetInputs.builder(m)
            .explicit("100000", "--context-budget")
            .env(Map.of("COMPACTOR_CONTEXT_BUDGET", "200000"))
            .perModel(BudgetSetting.of("300000", "models.\"test/model\".context_budget in cfg"))
            .project(BudgetSetting.of("400000", "[context] budget in ./compactor.toml"))
            .user(BudgetSetting.of("500000", "[context] budget in user cfg"));
    assertThat(resolve(all).source()).isEqualTo("--context-budget");
    assertThat(resolve(all).tokens()).isEqualTo(100_000);

    assertThat(
            resolve(
                    BudgetInputs.builder(m)
                        .env(Map.of("COMPACTOR_CONTEXT_BUDGET", "200000"))
                        .perModel(BudgetSetting.of("300000", "per-model")))
                .tokens())
        .isEqualTo(200_000);
    ResolvedBudget perModel =
        resolve(
            BudgetInputs.builder(m)
                .perModel(BudgetSetting.of("300000", "per-model"))
                .project(BudgetSetting.of("400000", "project")));
    assertThat(perModel.tokens()).isEqualTo(300_000);
    assertThat(perModel.source()).isEqualTo("per-model");
    ResolvedBudget meta = resolve(BudgetInputs.builder(m));
    assertThat(meta.tokens()).isEqualTo(950_000);
    assertThat(meta.source()).isEqualTo("model metadata");
  }

  @Test
  void explicitAbsolute_isClampedToCeiling_butNotRaisedToTheDefaultFloor() {
    ModelInfo m = model(200_000, 8_192);
    assertThat(resolve(BudgetInputs.builder(m).explicit("300000", "--context-budget")).tokens())
        .isEqualTo(200_000 - 8_192 - 1_000);
    assertThat(resolve(BudgetInputs.builder(m).explicit("500", "--context-budget")).tokens())
        .isEqualTo(500);
    assertThat(resolve(BudgetInputs.builder(m).explicit("300_000.0", "--x")).tokens())
        .isEqualTo(190_808);
  }

  @Test
  void explicit_whenCeilingIsNotPositive_usesMin1000Window() {
    // 8192 window, 8192 output: ceiling = max(1, min(1000, 8192)) = 1000
    assertThat(resolve(BudgetInputs.builder(model(8_192, 8_192)).explicit("0.9", "--cb")).tokens())
        .isEqualTo(1_000);
    assertThat(resolve(BudgetInputs.builder(model(600, 8_192)).explicit("0.5", "--cb")).tokens())
        .isEqualTo(300);
  }

  @Test
  void tinyFraction_isAtLeastOneToken() {
    assertThat(resolve(BudgetInputs.builder(model(500, 0)).explicit("0.0001", "--cb")).tokens())
        .isEqualTo(1);
  }

  @Test
  void contextLengthEnv_overridesTheWindow_andIsReported() {
    ResolvedBudget b =
        resolve(
            BudgetInputs.builder(ModelCatalog.builtIn().lookup("ollama/llama3.1"))
                .env(Map.of("COMPACTOR_CONTEXT_LENGTH", "16384")));
    assertThat(b.window()).isEqualTo(16_384);
    assertThat(b.windowSource()).isEqualTo("COMPACTOR_CONTEXT_LENGTH");
    assertThat(b.tokens()).isEqualTo(16_384 - 4_096 - 1_000);
  }

  @Test
  void maxOutputOverride_changesTheReserve() {
    ResolvedBudget b = resolve(BudgetInputs.builder(model(200_000, 64_000)).maxOutputTokens(8_192));
    assertThat(b.tokens()).isEqualTo(180_000);
    assertThat(b.maxOutput()).isEqualTo(8_192);
  }

  // --- invalid values fail, naming value and source ---

  @Test
  void envZero_failsWithTheDocumentedMessage() {
    assertThatThrownBy(
            () ->
                resolve(
                    BudgetInputs.builder(model(200_000, 8_192))
                        .env(Map.of("COMPACTOR_CONTEXT_BUDGET", "0.0"))))
        .isInstanceOf(InvalidSettingException.class)
        .isInstanceOf(CompactorException.class)
        .hasMessage("context budget \"0.0\" from COMPACTOR_CONTEXT_BUDGET must be > 0");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0",
        "0.0",
        "-1",
        "-0.5",
        "NaN",
        "nan",
        "inf",
        "-inf",
        "Infinity",
        "abc",
        "",
        "  ",
        "1.5",
        "300000.5",
        "0x10",
        "1e400000000000"
      })
  void invalidValues_failInEveryLayer_namingValueAndSource(String bad) {
    ModelInfo m = model(200_000, 8_192);
    assertInvalid(
        BudgetInputs.builder(m).explicit(bad, "--context-budget"), bad, "--context-budget");
    assertInvalid(
        BudgetInputs.builder(m).env(Map.of("COMPACTOR_CONTEXT_BUDGET", bad)),
        bad,
        "COMPACTOR_CONTEXT_BUDGET");
    String src = "models.\"test/model\".context_budget in ~/.config/compactor/config.toml";
    assertInvalid(BudgetInputs.builder(m).perModel(BudgetSetting.of(bad, src)), bad, src);
    assertInvalid(
        BudgetInputs.builder(m)
            .project(BudgetSetting.of(bad, "[context] budget in ./compactor.toml")),
        bad,
        "[context] budget in ./compactor.toml");
    assertInvalid(BudgetInputs.builder(m).user(BudgetSetting.of(bad, "user")), bad, "user");
  }

  @Test
  void invalidValue_specificProblems() {
    assertThatThrownBy(() -> BudgetValue.parse("1.5", "src"))
        .hasMessage(
            "context budget \"1.5\" from src must be a fraction <= 1 of the window or a whole"
                + " number of tokens");
    assertThatThrownBy(() -> BudgetValue.parse("inf", "src"))
        .hasMessage("context budget \"inf\" from src must be a finite number");
    assertThatThrownBy(() -> BudgetValue.parse("", "src"))
        .hasMessage("context budget \"\" from src must not be empty");
    assertThatThrownBy(() -> BudgetValue.parse("abc", "src"))
        .hasMessageContaining("must be a number");
    assertThatThrownBy(() -> new BudgetValue(Double.NaN, "src"))
        .hasMessage("context budget \"NaN\" from src must be a finite number");
    assertThatThrownBy(() -> BudgetValue.parse("99999999999999999999", "src"))
        .hasMessageContaining("too large");
  }

  @Test
  void invalidValue_inAnOverriddenLayer_stillFails() {
    assertThatThrownBy(
            () ->
                resolve(
                    BudgetInputs.builder(model(200_000, 8_192))
                        .explicit("0.5", "--context-budget")
                        .user(BudgetSetting.of("abc", "[context] budget in user cfg"))))
        .hasMessageContaining("\"abc\" from [context] budget in user cfg");
  }

  @Test
  void invalidContextLength_failsNamingIt() {
    assertThatThrownBy(
            () ->
                resolve(
                    BudgetInputs.builder(model(200_000, 8_192))
                        .env(Map.of("COMPACTOR_CONTEXT_LENGTH", "lots"))))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageStartingWith("context length \"lots\" from COMPACTOR_CONTEXT_LENGTH");
  }

  @Test
  void validValues_parse() {
    assertThat(BudgetValue.parse("0.85", "s").tokensFor(200_000)).isEqualTo(170_000);
    assertThat(BudgetValue.parse("1", "s").isFraction()).isTrue();
    assertThat(BudgetValue.parse("1", "s").tokensFor(200_000)).isEqualTo(200_000);
    assertThat(BudgetValue.parse("2", "s").tokensFor(200_000)).isEqualTo(2);
    assertThat(BudgetValue.parse("3e5", "s").tokensFor(1)).isEqualTo(300_000);
    assertThat(BudgetValue.parse(" 300000 ", "s").tokensFor(1)).isEqualTo(300_000);
  }

  @Test
  void inputs_rejectNegativeReserves() {
    assertThatThrownBy(() -> BudgetInputs.builder(model(1000, 10)).headroom(-1).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BudgetInputs.builder(model(1000, 10)).maxOutputTokens(-1).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static void assertInvalid(BudgetInputs.Builder b, String bad, String source) {
    assertThatThrownBy(() -> ContextBudget.resolve(b.build()))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageStartingWith("context budget \"" + bad + "\" from " + source + " ")
        .satisfies(
            e -> {
              InvalidSettingException ise = (InvalidSettingException) e;
              assertThat(ise.value()).isEqualTo(bad);
              assertThat(ise.source()).isEqualTo(source);
            });
  }
}
