package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Budgets and model names: refused with a message, clamping said, the same check everywhere. */
class SettingsValidationTest {
  private static final String GPT_4O = "openai/gpt-4o";
  private static final String BUDGET = "--context-budget";
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private Path chat() throws Exception {
    return Files.writeString(
        dir.resolve("chat.json"),
        "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"hello\"}]");
  }

  @Test
  void aBudgetBelow1000Tokens_isRefused() throws Exception {
    for (String b : new String[] {"5", "0.001"}) {
      CliRunner r =
          CliRunner.run(
              "inspect", chat().toString(), "--model", "openai/gpt-4o", "--context-budget", b);
      assertThat(r.exitCode()).as(b).isEqualTo(2);
      assertThat(r.err())
          .contains("context budget \"" + b + "\" from --context-budget")
          .contains("at least 1,000 tokens");
    }
  }

  @Test
  void aClampedBudget_saysSo() throws Exception {
    CliRunner r =
        CliRunner.run("inspect", "" + chat(), "--model", GPT_4O, BUDGET, "99999999", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode b = JSON.readTree(r.out()).get("budget");
    assertThat(b.get("clamped").asBoolean()).isTrue();
    assertThat(b.get("requested").asLong()).isEqualTo(99_999_999L);
    assertThat(b.get("tokens").asLong()).isLessThan(128_000);

    CliRunner text = CliRunner.run("inspect", "" + chat(), "--model", GPT_4O, BUDGET, "99999999");
    assertThat(text.out()).contains("clamped from 99,999,999");
  }

  @Test
  void aDirectorysSettings_keepWhatWasGivenAndWhatWasUsed() throws Exception {
    Path out = dir.resolve("c.compactor");
    CliRunner r =
        CliRunner.run("compact", chat().toString(), "--out", "" + out, "--model", GPT_4O, "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    CliRunner again =
        CliRunner.run(
            "compact", out.toString(), "--model", "openai/gpt-4o", "--context-budget", "0.5");
    assertThat(again.exitCode()).as(again.err()).isZero();
    JsonNode settings = JSON.readTree(out.resolve("settings.json").toFile());
    assertThat(settings.toString()).contains("\"context_budget\":\"0.5\"");
    assertThat(settings.toString()).contains("\"context_budget_tokens\":\"64000\"");
  }

  @Test
  void modelNames_areCheckedTheSameWayByEveryCommand() throws Exception {
    String file = chat().toString();
    for (String[] args :
        new String[][] {
          {"inspect", file, "--model", "bogus"},
          {"compact", file, "--out", dir.resolve("x").toString(), "--model", "bogus"},
          {"replay", file, "--model", "bogus", "--quiet"},
        }) {
      CliRunner r = CliRunner.run(args);
      assertThat(r.exitCode()).as(args[0]).isEqualTo(2);
      assertThat(r.err())
          .as(args[0])
          .contains("model \"bogus\" from --model must be provider/model");
    }
    CliRunner unknown = CliRunner.run("inspect", file, "--model", "nope/x");
    assertThat(unknown.err()).contains("unknown provider \"nope\"").contains("openai, anthropic");
    assertThat(dir.resolve("x")).doesNotExist();
  }

  @Test
  void taskCall_badModelName_namesNoJavaClass() throws Exception {
    Path req =
        Files.writeString(
            dir.resolve("req.json"),
            "{\"model\": \"nope\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}");
    CliRunner r = CliRunner.runWithEnv(Map.of(), CliRunner.taskCall("c", dir.resolve("t.db"), req));
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out() + r.err()).doesNotContain("ChatModels").contains("provider/model");
  }

  @Test
  void unknownConfigKeys_areReportedWithTheirPath() throws Exception {
    Path config = Files.createDirectories(dir.resolve("config/compactor"));
    Files.writeString(config.resolve("config.toml"), "[context]\nbudgt = 0.5\n");
    CliRunner r =
        CliRunner.runWithEnv(
            Map.of("HOME", dir.toString(), "XDG_CONFIG_HOME", dir.resolve("config").toString()),
            "inspect",
            chat().toString(),
            "--model",
            "openai/gpt-4o");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.err())
        .contains("warning: unknown configuration key [context] budgt in ")
        .contains("config.toml");
  }
}
