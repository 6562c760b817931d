package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an import skipped or repaired is printed; {@code --strict} refuses it. */
class ImportProblemsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private static final String LINE_1 =
      "{\"role\": \"user\", \"content\": \"hi\", \"timestamp\": \"2026-01-01T10:00:00Z\"}";

  private Path gptmeWithABrokenLine() throws Exception {
    return Files.writeString(
        dir.resolve("log.jsonl"),
        LINE_1
            + "\n{\"role\": \"assistant\", \"cont\n"
            + "{\"role\": \"assistant\", \"content\": \"hello\", \"timestamp\":"
            + " \"2026-01-01T10:00:01Z\"}\n");
  }

  private Path openAiWithAnOrphanResult() throws Exception {
    return Files.writeString(
        dir.resolve("chat.json"),
        """
        [{"role":"user","content":"List the files."},
         {"role":"tool","tool_call_id":"c7","content":"a.txt"},
         {"role":"assistant","content":"Done."}]
        """);
  }

  @Test
  void inspect_printsTheBrokenLineWithItsOffset_andStaysInTheFormat() throws Exception {
    String at = "line 2 (byte " + (LINE_1.getBytes(StandardCharsets.UTF_8).length + 1) + ")";
    CliRunner text = CliRunner.run("inspect", gptmeWithABrokenLine().toString());
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out()).contains("format        gptme").contains("problem").contains(at);

    CliRunner json = CliRunner.run("inspect", gptmeWithABrokenLine().toString(), "--json");
    JsonNode j = JSON.readTree(json.out());
    assertThat(j.get("format").asText()).isEqualTo("gptme");
    assertThat(j.get("problems")).hasSize(1);
    assertThat(j.get("problems").get(0).asText()).contains("malformed").contains(at);
  }

  @Test
  void strict_turnsProblemsIntoAnError() throws Exception {
    CliRunner r = CliRunner.run("inspect", gptmeWithABrokenLine().toString(), "--strict");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("refused by --strict").contains("line 2 (byte ");

    Path out = dir.resolve("out.compactor");
    CliRunner c =
        CliRunner.run(
            "compact", gptmeWithABrokenLine().toString(), "--strict", "--out", out.toString());
    assertThat(c.exitCode()).isEqualTo(2);
    assertThat(out).doesNotExist();
  }

  @Test
  void orphanToolResult_isNeverSilentlyAUserMessage() throws Exception {
    CliRunner r = CliRunner.run("inspect", openAiWithAnOrphanResult().toString(), "--json");
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("problems").toString())
        .contains("without a matching call")
        .contains("message 1 (msg-1) answers c7");

    Path out = dir.resolve("chat.compactor");
    CliRunner c =
        CliRunner.run("compact", openAiWithAnOrphanResult().toString(), "--out", out.toString());
    assertThat(c.err())
        .as("the import says what it repaired")
        .contains("warning: ")
        .contains("message 1 (msg-1) answers c7");

    CliRunner strict = CliRunner.run("inspect", openAiWithAnOrphanResult().toString(), "--strict");
    assertThat(strict.exitCode()).isEqualTo(2);
    assertThat(strict.err()).contains("c7");
  }

  @Test
  void openAiOrphanResultAndUnansweredCall_areRepairedProblems_notViolations_inInspectAndCompact()
      throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("calls.json"),
            """
            [{"role":"user","content":"hi"},
             {"role":"tool","tool_call_id":"zz","content":"stray output"},
             {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
               "function":{"name":"ls","arguments":"{}"}}]},
             {"role":"user","content":"never mind"},
             {"role":"assistant","content":"ok"}]
            """);
    CliRunner json = CliRunner.run("inspect", f.toString(), "--json");
    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode j = JSON.readTree(json.out());
    assertThat(j.get("invalid")).isEmpty();
    assertThat(j.get("problems")).hasSize(2);
    assertThat(j.get("problems").get(0).asText())
        .contains("imported as user messages")
        .contains("message 1 (msg-1) answers zz");
    assertThat(j.get("problems").get(1).asText())
        .contains("moved to metadata.extra.unanswered_tool_calls")
        .contains("c1 (ls)");

    CliRunner text = CliRunner.run("inspect", f.toString());
    assertThat(text.exitCode()).isZero();
    assertThat(text.out())
        .contains("problem       1 tool result(s) without a matching call")
        .contains("problem       1 tool call(s) without a result")
        .contains("invariants    valid as imported (the problems above were repaired or skipped)");

    // compact reads it the same way: the same two lines as warnings, a valid view.
    CliRunner c =
        CliRunner.run("compact", f.toString(), "--out", dir.resolve("c").toString(), "--json");
    assertThat(c.exitCode()).as(c.err()).isZero();
    assertThat(JSON.readTree(c.out()).get("invalid")).isEmpty();
    for (JsonNode p : j.get("problems")) {
      assertThat(c.err()).contains("warning: " + f + ": " + p.asText());
    }
  }
}
