package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With {@code --json}, an error is JSON on standard output as well as text on standard error. */
class JsonErrorsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private static JsonNode error(CliRunner r) throws Exception {
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.fieldNames()).toIterable().containsExactly("error");
    return j.get("error");
  }

  @Test
  void inspect_missingFile() throws Exception {
    String missing = dir.resolve("nope.jsonl").toString();
    CliRunner r = CliRunner.run("inspect", missing, "--json");
    assertThat(r.exitCode()).isEqualTo(2);
    JsonNode e = error(r);
    assertThat(e.get("code").asText()).isEqualTo("error");
    assertThat(e.get("message").asText()).contains("no such file").contains(missing);
    assertThat(r.err()).contains("compactor: no such file");
  }

  @Test
  void inspect_unknownFormatAndBadBudget() throws Exception {
    Path f = Files.writeString(dir.resolve("a.json"), "[{\"role\":\"user\",\"content\":\"hi\"}]");
    CliRunner r = CliRunner.run("inspect", f.toString(), "--format", "nope", "--json");
    assertThat(error(r).get("code").asText()).isEqualTo("import_failed");
    assertThat(error(r).get("message").asText()).contains("nope");

    CliRunner b = CliRunner.run("inspect", f.toString(), "--context-budget", "-3", "--json");
    assertThat(b.exitCode()).isEqualTo(2);
    assertThat(error(b).get("message").asText()).contains("-3");
  }

  @Test
  void compact_unknownOption_isAUsageErrorInJson() throws Exception {
    Path f = Files.writeString(dir.resolve("a.json"), "[{\"role\":\"user\",\"content\":\"hi\"}]");
    CliRunner r = CliRunner.run("compact", f.toString(), "--json", "--bogus");
    assertThat(r.exitCode()).isEqualTo(2);
    JsonNode e = error(r);
    assertThat(e.get("code").asText()).isEqualTo("usage");
    assertThat(e.get("message").asText()).contains("--bogus");
    assertThat(r.err()).contains("--bogus");
  }

  @Test
  void withoutJson_errorsStayOffStandardOutput() {
    CliRunner r = CliRunner.run("inspect", dir.resolve("nope.jsonl").toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
  }

  @Test
  void task_refusedDatabase_isJson() throws Exception {
    CliRunner r = CliRunner.run("task", "show", "--chat", "c1", "--db", "jdbc:mysql://h/db");
    assertThat(r.exitCode()).isEqualTo(2);
    JsonNode e = error(r);
    assertThat(e.get("code").asText()).isEqualTo("invalid_argument");
    assertThat(e.get("message").asText()).contains("jdbc:");
  }

  @Test
  void errors_nameNoJavaClassesOrJacksonFeatures() throws Exception {
    Path gz = Files.write(dir.resolve("broken.jsonl.gz"), new byte[] {0x1f, (byte) 0x8b, 1, 2, 3});
    Path prices = Files.writeString(dir.resolve("p.tsv"), "openai/gpt-4o x 2\n");
    Path ok = Files.writeString(dir.resolve("a.json"), "[{\"role\":\"user\",\"content\":\"hi\"}]");
    Path req = Files.writeString(dir.resolve("r.json"), "{\"model\": \"nope\", \"messages\": [");
    for (String[] args :
        new String[][] {
          {"inspect", gz.toString()},
          {"replay", ok.toString(), "--prices", prices.toString(), "--quiet"},
          CliRunner.taskCall("c", dir.resolve("t.db"), req),
        }) {
      CliRunner r = CliRunner.run(args);
      assertThat(r.exitCode()).as(args[0]).isNotZero();
      assertThat(r.err() + r.out())
          .as(String.join(" ", args))
          .doesNotContain("java.")
          .doesNotContain("Exception")
          .doesNotContain("Feature")
          .doesNotContain("ChatModels");
    }
  }
}
