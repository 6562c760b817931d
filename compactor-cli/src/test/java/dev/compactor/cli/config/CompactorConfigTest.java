package dev.compactor.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactorConfigTest {
  @TempDir Path tmp;
  private Path home;
  private Path project;
  private Map<String, String> env;
  private ConfigLocations locations;

  @BeforeEach
  void setUp() throws IOException {
    home = Files.createDirectories(tmp.resolve("home"));
    project = Files.createDirectories(tmp.resolve("project"));
    env = Map.of("HOME", home.toString());
    locations = ConfigLocations.standard(project, env);
  }

  private void writeUser(String toml) throws IOException {
    Files.createDirectories(locations.userFile().getParent());
    Files.writeString(locations.userFile(), toml);
  }

  private void writeProject(String toml) throws IOException {
    Files.writeString(locations.projectFile(), toml);
  }

  @Test
  void standardLocations_userFileUnderHomeConfig_orXdgConfigHome() {
    assertThat(locations.userFile()).isEqualTo(home.resolve(".config/compactor/config.toml"));
    assertThat(locations.projectFile()).isEqualTo(project.resolve("compactor.toml"));
    assertThat(locations.display(locations.userFile()))
        .isEqualTo("~/.config/compactor/config.toml");

    Path xdg = tmp.resolve("xdg");
    ConfigLocations withXdg =
        ConfigLocations.standard(
            project, Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", xdg.toString()));
    assertThat(withXdg.userFile()).isEqualTo(xdg.resolve("compactor/config.toml"));
    ConfigLocations emptyXdg =
        ConfigLocations.standard(project, Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", ""));
    assertThat(emptyXdg.userFile()).isEqualTo(locations.userFile());
  }

  @Test
  void noFiles_giveTheDefaultBudget() {
    CompactorConfig config = CompactorConfig.load(locations);
    assertThat(config.project()).isEmpty();
    assertThat(config.user()).isEmpty();
    ResolvedBudget b = config.resolveBudget("openai/gpt-4o", env, null);
    assertThat(b.source()).isEqualTo("default");
    assertThat(b.tokens()).isEqualTo(Math.min(115_200, 128_000 - 16_384 - 1_000));
  }

  @Test
  void projectBudget_winsOverUserBudget_08Over07On200k() throws IOException {
    writeUser("[context]\nbudget = 0.7\n");
    writeProject("[context]\nbudget = 0.8\n");
    ResolvedBudget b =
        CompactorConfig.load(locations).resolveBudget("anthropic/claude-opus-4-1", env, null);
    assertThat(b.tokens()).isEqualTo(160_000);
    assertThat(b.source()).isEqualTo("[context] budget in " + locations.projectFile());
  }

  @Test
  void userBudget_appliesAlone_andNamesTheFileWithTilde() throws IOException {
    writeUser("[context]\nbudget = 100000\n");
    ResolvedBudget b = CompactorConfig.load(locations).resolveBudget("gpt-4o", env, null);
    assertThat(b.tokens()).isEqualTo(100_000);
    assertThat(b.source()).isEqualTo("[context] budget in ~/.config/compactor/config.toml");
  }

  @Test
  void perModelBudget_beatsContextBudget_andMatchesDatedNames() throws IOException {
    writeUser(
        """
        [context]
        budget = 0.5

        [models."anthropic/claude-sonnet-4-5"]
        context_budget = 120000
        """);
    CompactorConfig config = CompactorConfig.load(locations);
    ResolvedBudget b = config.resolveBudget("claude-sonnet-4-5-20250929", env, null);
    assertThat(b.tokens()).isEqualTo(120_000);
    assertThat(b.source())
        .isEqualTo(
            "models.\"anthropic/claude-sonnet-4-5\".context_budget in"
                + " ~/.config/compactor/config.toml");
    assertThat(config.resolveBudget("openai/gpt-4o", env, null).tokens()).isEqualTo(64_000);
  }

  @Test
  void explicitAndEnv_winOverFiles() throws IOException {
    writeProject("[context]\nbudget = 0.8\n");
    CompactorConfig config = CompactorConfig.load(locations);
    ResolvedBudget explicit =
        config.resolveBudget(
            "anthropic/claude-opus-4-1", env, BudgetSetting.of("50000", "--context-budget"));
    assertThat(explicit.tokens()).isEqualTo(50_000);
    assertThat(explicit.source()).isEqualTo("--context-budget");
    Map<String, String> withEnv =
        Map.of("HOME", home.toString(), "COMPACTOR_CONTEXT_BUDGET", "0.6");
    assertThat(config.resolveBudget("anthropic/claude-opus-4-1", withEnv, null).tokens())
        .isEqualTo(120_000);
  }

  @Test
  void modelTables_extendTheCatalog_projectKeysWinPerKey() throws IOException {
    writeUser(
        """
        [models."deepseek/deepseek-v4"]
        context_window = 1_000_000
        max_output = 32_000
        context_budget = 300000
        """);
    writeProject(
        """
        [models."deepseek/deepseek-v4"]
        max_output = 16000
        """);
    CompactorConfig config = CompactorConfig.load(locations);
    ModelCatalog catalog = config.catalog(ModelCatalog.builtIn());
    var info = catalog.lookup("deepseek/deepseek-v4");
    assertThat(info.contextWindow()).isEqualTo(1_000_000);
    assertThat(info.maxOutputTokens()).isEqualTo(16_000);
    assertThat(info.windowSource())
        .isEqualTo(
            "models.\"deepseek/deepseek-v4\".context_window in ~/.config/compactor/config.toml");

    ResolvedBudget b = config.resolveBudget("deepseek/deepseek-v4", env, null);
    assertThat(b.tokens()).isEqualTo(300_000);
    assertThat(b.window()).isEqualTo(1_000_000);
    assertThat(b.maxOutput()).isEqualTo(16_000);
  }

  @Test
  void contextLengthEnv_beatsConfiguredWindow() throws IOException {
    writeUser("[models.\"ollama/llama3.1\"]\ncontext_window = 65536\n");
    Map<String, String> e = Map.of("HOME", home.toString(), "COMPACTOR_CONTEXT_LENGTH", "8192");
    ResolvedBudget b = CompactorConfig.load(locations).resolveBudget("llama3.1:8b", e, null);
    assertThat(b.window()).isEqualTo(8_192);
    assertThat(b.windowSource()).isEqualTo("COMPACTOR_CONTEXT_LENGTH");
  }

  @Test
  void instructionsAndKeepRecent_projectOverUser() throws IOException {
    writeUser("[context]\ncompact_instructions = \"user notes\"\nkeep_recent_tokens = 20000\n");
    writeProject("[context]\ncompact_instructions = \"Keep the API decisions.\"\n");
    CompactorConfig config = CompactorConfig.load(locations);
    assertThat(config.compactInstructions()).hasValue("Keep the API decisions.");
    assertThat(config.keepRecentTokens()).hasValue(20_000);
  }

  @Test
  void unknownKeys_areIgnored() throws IOException {
    writeProject("[context]\nbudget = 0.8\nfuture_key = true\n[other]\nx = 1\n");
    assertThat(CompactorConfig.load(locations).projectBudget()).isPresent();
  }

  // --- errors name the file and the key ---

  @Test
  void invalidBudget_failsOnLoad_namingFileAndKey() throws IOException {
    writeProject("[context]\nbudget = 1.5\n");
    assertThatThrownBy(() -> CompactorConfig.load(locations))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageStartingWith(
            "context budget \"1.5\" from [context] budget in " + locations.projectFile());
  }

  @Test
  void invalidBudgets_ofEveryKind_fail() throws IOException {
    for (String bad :
        new String[] {"0", "0.0", "-3", "inf", "nan", "\"abc\"", "\"\"", "true", "300000.5"}) {
      writeUser("[models.\"openai/gpt-4o\"]\ncontext_budget = " + bad + "\n");
      assertThatThrownBy(() -> CompactorConfig.load(locations))
          .as(bad)
          .isInstanceOf(InvalidSettingException.class)
          .hasMessageContaining(
              "from models.\"openai/gpt-4o\".context_budget in ~/.config/compactor/config.toml");
    }
  }

  @Test
  void invalidWindowOrOutputOrKeep_failNamingKey() throws IOException {
    writeUser("[models.\"acme/x\"]\ncontext_window = \"big\"\n");
    assertThatThrownBy(() -> CompactorConfig.load(locations))
        .hasMessageStartingWith(
            "context length \"big\" from models.\"acme/x\".context_window in"
                + " ~/.config/compactor/config.toml");
    writeUser("[models.\"acme/x\"]\nmax_output = -1\n");
    assertThatThrownBy(() -> CompactorConfig.load(locations))
        .hasMessageContaining("models.\"acme/x\".max_output in ~/.config/compactor/config.toml");
    writeUser("[context]\nkeep_recent_tokens = 1.5\n");
    assertThatThrownBy(() -> CompactorConfig.load(locations))
        .hasMessageContaining("[context] keep_recent_tokens in ~/.config/compactor/config.toml");
    writeUser("[context]\ncompact_instructions = 5\n");
    assertThatThrownBy(() -> CompactorConfig.load(locations))
        .hasMessageContaining("[context] compact_instructions in");
  }

  @Test
  void malformedToml_failsNamingTheFile() throws IOException {
    writeProject("[context\nbudget = 0.8\n");
    assertThatThrownBy(() -> CompactorConfig.load(locations))
        .isInstanceOf(CompactorException.class)
        .hasMessageStartingWith("invalid TOML in " + locations.projectFile());
  }

  @Test
  void contextNotATable_failsNamingFile() throws IOException {
    writeProject("context = 3\n");
    assertThatThrownBy(() -> CompactorConfig.load(locations))
        .hasMessage("[context] in " + locations.projectFile() + " must be a table");
  }

  @Test
  void unknownKeys_areListedWithTheirPathAndFile() throws IOException {
    writeProject(
        "colour = 1\n[context]\nbudgt = 0.8\nbudget = 0.7\n[modles]\nx = 1\n"
            + "[models.\"openai/gpt-4o\"]\ncontext_windw = 5\nmax_output = 100\n");
    CompactorConfig c = CompactorConfig.load(locations);
    String f = locations.projectFile().toString();
    assertThat(c.unknownKeys())
        .containsExactlyInAnyOrder(
            "colour in " + f,
            "[modles] in " + f,
            "[context] budgt in " + f,
            "[models.\"openai/gpt-4o\"] context_windw in " + f);
    assertThat(c.projectBudget()).isPresent();
  }
}
