package dev.compactor.log.imports;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.core.view.Violation;
import dev.compactor.testkit.corpus.SharedCorpus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Imports every file of the shared corpus of real transcripts ({@code ../shared/corpus} from the
 * project root; see its README for provenance) and checks each conversation is valid for {@link
 * ViewValidator}. Skipped when the corpus is absent, as it is on a user's machine.
 */
class CorpusImportTest {
  private static final ViewValidator VALIDATOR = new ViewValidator();
  private static int files;
  private static int conversations;
  private static long messages;
  private static long nanos;
  private static int violations;

  @TestFactory
  Stream<DynamicTest> everyCorpusFile_importsWithoutViolations() {
    Path root = SharedCorpus.require("CorpusImportTest");
    List<Path> paths = SharedCorpus.transcripts(root);
    assertThat(paths).isNotEmpty();
    return paths.stream()
        .map(p -> DynamicTest.dynamicTest(root.relativize(p).toString(), () -> check(root, p)));
  }

  private static void check(Path root, Path file) throws IOException {
    long t0 = System.nanoTime();
    ImportResult r = Importers.read(file);
    nanos += System.nanoTime() - t0;
    files++;
    conversations += r.conversations().size();
    messages += r.messageCount();

    String folder = root.relativize(file).getName(0).toString();
    String expected =
        Map.of(
                "claude-code", "claude-code",
                "mini-swe-agent", "mini-swe-agent",
                "swe-agent", "swe-agent",
                "tau-bench", "tau-bench",
                "synthetic", "gptme")
            .get(folder);
    assertThat(r.format()).as("format of %s", file).isEqualTo(expected);
    assertThat(r.conversations()).isNotEmpty();
    for (ImportedConversation c : r.conversations()) {
      List<Violation> v = VALIDATOR.validate(c.messages());
      violations += v.size();
      assertThat(v).as("violations in %s / %s", file, c.name()).isEmpty();
      assertThat(c.messages())
          .as("messages of %s / %s", file, c.name())
          .hasSizeGreaterThanOrEqualTo(2);
      if (folder.equals("claude-code")) {
        assertThat(new ViewValidator(ViewValidator.Target.ANTHROPIC).validate(c.messages()))
            .as("Anthropic role rules in %s", file)
            .isEmpty();
        assertThat(c.messages().stream().map(Message::role))
            .as("roles of %s / %s", file, c.name())
            .contains(Role.USER, Role.ASSISTANT);
      }
      long ids = c.messages().stream().map(Message::id).distinct().count();
      assertThat(ids).as("distinct ids in %s / %s", file, c.name()).isEqualTo(c.messages().size());
    }
    if (folder.equals("tau-bench")) {
      assertThat(r.conversations()).hasSize(200);
    }
    Integer source = sourceMessageCount(folder, file);
    if (source != null) {
      assertThat(r.messageCount()).as("messages of %s vs. the source", file).isEqualTo(source);
    }
  }

  /** Messages in the source, counted independently of the importers (null: not comparable). */
  private static Integer sourceMessageCount(String folder, Path file) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    switch (folder) {
      case "synthetic":
        try (BufferedReader r = reader(file)) {
          return (int) r.lines().filter(l -> !l.isBlank()).count();
        }
      case "tau-bench":
        try (BufferedReader r = reader(file)) {
          int n = 0;
          for (JsonNode run : mapper.readTree(r)) {
            n += run.get("traj").size();
          }
          return n;
        }
      case "mini-swe-agent":
        try (BufferedReader r = reader(file)) {
          return mapper.readTree(r).get("messages").size();
        }
      case "swe-agent":
        try (BufferedReader r = reader(file)) {
          return mapper.readTree(r).get("history").size();
        }
      default:
        return null;
    }
  }

  private static BufferedReader reader(Path file) throws IOException {
    return new BufferedReader(
        new InputStreamReader(
            new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8));
  }

  @AfterAll
  static void summary() {
    if (files > 0) {
      System.out.printf(
          "corpus import: %d files, %d conversations, %d messages, %d violations, %.2f s%n",
          files, conversations, messages, violations, nanos / 1e9);
    }
  }
}
