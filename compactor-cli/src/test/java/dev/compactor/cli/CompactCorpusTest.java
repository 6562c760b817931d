package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.testkit.corpus.SharedCorpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compactor compact} with trim and with summarize at 25 % of its tokens on every top-level
 * transcript of the shared corpus ({@code ../shared/corpus}; see its README for provenance): each
 * run either reaches a smaller valid view within the budget (exit 0), or exits with {@link
 * CompactCommand#EXIT_OVER_BUDGET} and says why and what would get further. Nothing else (an error,
 * an invalid view, a failed strategy) is accepted. The table of outcomes is written to {@code
 * target/cli-corpus.md} (copied into {@code docs/cli-corpus.md}).
 *
 * <p>Side chains ({@code subagents/}) are skipped: they continue another file's conversation. Of
 * the multi-conversation tau-bench file the first conversation is compacted. The budget is 25 % of
 * the tokens, at least 1,000; the command clamps it to what the model's window leaves for input.
 */
class CompactCorpusTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  record Row(
      String file,
      String strategy,
      long tokens,
      long budget,
      long after,
      int exit,
      String outcome,
      String reason) {}

  @Test
  void everyCorpusTranscript_trimAndSummarizeAtAQuarter_reachAValidSmallerViewOrSayWhyNot()
      throws Exception {
    Path root = SharedCorpus.require("CompactCorpusTest");
    List<Path> files;
    try (Stream<Path> s = Files.walk(root)) {
      files =
          s.filter(Files::isRegularFile)
              .filter(p -> p.toString().endsWith(".gz"))
              .filter(p -> !root.relativize(p).toString().contains("subagents"))
              .sorted()
              .toList();
    }
    assertThat(files).isNotEmpty();
    List<Row> rows = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Map<String, int[]> tally = new TreeMap<>();
    int n = 0;
    for (Path f : files) {
      String name = root.relativize(f).toString();
      List<String> pick = new ArrayList<>();
      CliRunner insp = CliRunner.run("inspect", f.toString(), "--json");
      JsonNode ij = JSON.readTree(insp.out());
      long tokens;
      if (ij.get("conversations").asInt() > 1) {
        JsonNode first = ij.get("perConversation").get(0);
        pick = List.of("--conversation", first.get("name").asText());
        tokens = first.get("tokens").asLong();
      } else {
        tokens = ij.get("tokens").asLong();
      }
      long budget = Math.max(1000, tokens / 4);
      for (String strategy : List.of("trim", "summarize")) {
        List<String> args =
            new ArrayList<>(
                List.of(
                    "compact",
                    f.toString(),
                    "--out",
                    dir.resolve((n++) + ".compactor").toString(),
                    "--strategy",
                    strategy,
                    "--context-budget",
                    Long.toString(budget),
                    "--json"));
        args.addAll(pick);
        CliRunner r = CliRunner.run(args.toArray(String[]::new));
        String where = name + " " + strategy + " (exit " + r.exitCode() + ")";
        JsonNode j;
        try {
          j = JSON.readTree(r.out());
        } catch (Exception e) {
          problems.add(where + ": no JSON result; stderr: " + r.err());
          continue;
        }
        if (j == null || !j.has("outcome")) {
          problems.add(where + ": no result; stderr: " + r.err());
          continue;
        }
        long before = j.get("tokensBefore").asLong();
        long after = j.get("tokensAfter").asLong();
        long used = j.get("budget").get("tokens").asLong();
        String reason = j.path("reason").asText("");
        rows.add(
            new Row(
                name,
                strategy,
                before,
                used,
                after,
                r.exitCode(),
                j.get("outcome").asText(),
                reason));
        tally.computeIfAbsent(strategy + " exit " + r.exitCode(), k -> new int[1])[0]++;
        if (!j.get("invalid").isEmpty()) {
          problems.add(where + ": invalid view " + j.get("invalid"));
        }
        if (r.exitCode() == CompactCommand.EXIT_OK) {
          if (after > used || (before > used && after >= before)) {
            problems.add(
                where + ": exit 0 but " + before + " → " + after + " tokens, budget " + used);
          }
        } else if (r.exitCode() == CompactCommand.EXIT_OVER_BUDGET) {
          if (after <= used || reason.isBlank() || j.get("hints").isEmpty()) {
            problems.add(where + ": over budget without reason or hints: " + j);
          }
          if (!j.get("outcome").asText().equals("over-budget")) {
            problems.add(where + ": exit 4 but outcome " + j.get("outcome"));
          }
        } else {
          problems.add(where + ": " + j.path("reason").asText() + " " + r.err());
        }
      }
    }
    Path table = Path.of("target", "cli-corpus.md");
    Files.createDirectories(table.getParent());
    Files.writeString(table, markdown(rows, tally));
    System.out.println(
        "CompactCorpusTest: "
            + tally.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()[0]).toList()
            + "; table in "
            + table.toAbsolutePath());
    assertThat(problems).isEmpty();
  }

  private static String markdown(List<Row> rows, Map<String, int[]> tally) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| file | strategy | tokens before | budget | tokens after | exit | outcome | reason |\n");
    sb.append("|---|---|---:|---:|---:|---:|---|---|\n");
    for (Row r : rows) {
      sb.append(
          String.format(
              "| %s | %s | %,d | %,d | %,d | %d | %s | %s |%n",
              r.file(),
              r.strategy(),
              r.tokens(),
              r.budget(),
              r.after(),
              r.exit(),
              r.outcome(),
              r.reason().replace("|", "\\|").replace("\n", " ")));
    }
    sb.append("\nTotals: ");
    List<String> t = new ArrayList<>();
    tally.forEach((k, v) -> t.add(k + ": " + v[0]));
    sb.append(String.join(", ", t)).append('\n');
    return sb.toString();
  }
}
