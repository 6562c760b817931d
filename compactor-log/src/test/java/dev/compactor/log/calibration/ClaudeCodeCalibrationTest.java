package dev.compactor.log.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.Calibration;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.testkit.corpus.SharedCorpus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Integration test on real data: calibrates the chars-per-token estimate against the usage Claude
 * Code sessions report (corpus {@code shared/corpus/claude-code}, from marot/spotter @ 8cc42b0b,
 * MIT). Runs as part of {@code mvn test} and skips with a message when the corpus is absent.
 *
 * <p>Each API request is sampled once (Claude Code writes one event per content block, all with the
 * request's {@code message.id} and usage): the estimate of every main-chain message before its
 * first block, against {@code input_tokens + cache_creation_input_tokens +
 * cache_read_input_tokens}. Claude Code's own compactions ({@code compact_boundary}) start a new
 * prefix. The transcripts are parsed here with plain Jackson, not with the project's importer.
 */
class ClaudeCodeCalibrationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double BASE = TokenCounters.DEFAULT_CHARS_PER_TOKEN;

  @Test
  void calibratedRatio_onClaudeCodeTranscripts_isReported() throws IOException {
    Path dir = findCorpus();
    SharedCorpus.assumePresent(
        dir != null,
        "ClaudeCodeCalibrationTest: corpus shared/corpus/claude-code not found above "
            + Path.of("").toAbsolutePath()
            + " (it is not part of the project)");
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.jsonl.gz")) {
      ds.forEach(files::add);
    }
    files.sort(null);
    SharedCorpus.assumePresent(
        !files.isEmpty(), "ClaudeCodeCalibrationTest: no *.jsonl.gz in " + dir);

    TokenCounter estimate = TokenCounters.estimate(BASE);
    Calibration all = new Calibration(BASE);
    for (Path f : files) {
      Calibration one = new Calibration(BASE);
      int requests = sample(f, estimate, one, all);
      System.out.printf(
          Locale.ROOT, "calibration %-46s %4d requests: %s%n", f.getFileName(), requests, one);
    }
    System.out.printf(
        Locale.ROOT,
        "calibration claude-code corpus: %.3f chars/token (default %.3f), %s%n",
        all.charsPerToken(),
        BASE,
        all);

    assertThat(all.samples()).isGreaterThan(100);
    assertThat(all.method()).isEqualTo(Calibration.Method.FIT);
    assertThat(all.charsPerToken()).isBetween(1.5, 4.5);
    // the harness's system prompt and tool schemas: tens of thousands of tokens
    assertThat(all.overheadTokens()).isBetween(5_000.0, 60_000.0);
  }

  private static int sample(Path file, TokenCounter estimate, Calibration one, Calibration all)
      throws IOException {
    Set<String> seenRequests = new HashSet<>();
    long prefix = 0;
    boolean any = false;
    int requests = 0;
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode e = JSON.readTree(line);
        String type = e.path("type").asText();
        if (type.equals("system") && e.path("subtype").asText().equals("compact_boundary")) {
          prefix = 0;
          any = false;
          continue;
        }
        if (!(type.equals("user") || type.equals("assistant"))
            || e.path("isSidechain").asBoolean(false)) {
          continue;
        }
        JsonNode msg = e.path("message");
        if (type.equals("assistant")) {
          JsonNode usage = msg.path("usage");
          String id = msg.path("id").asText("");
          if (usage.isObject() && !id.isEmpty() && seenRequests.add(id) && any) {
            long reported =
                usage.path("input_tokens").asLong()
                    + usage.path("cache_creation_input_tokens").asLong()
                    + usage.path("cache_read_input_tokens").asLong();
            if (reported > 0) {
              long estimated = prefix + estimate.overhead().replyPriming();
              one.add(estimated, reported);
              all.add(estimated, reported);
              requests++;
            }
          }
        }
        for (Message m : toMessages(type, msg.path("content"))) {
          prefix += estimate.countMessage(m);
          any = true;
        }
      }
    }
    return requests;
  }

  // Minimal mapping of an Anthropic message's content onto core messages: text and thinking stay
  // with the role, tool_use becomes a tool call, each tool_result its own tool message.
  private static List<Message> toMessages(String type, JsonNode content) {
    Role role = type.equals("assistant") ? Role.ASSISTANT : Role.USER;
    List<Message> out = new ArrayList<>();
    if (content.isTextual()) {
      out.add(Message.builder(role).content(content.asText()).build());
      return out;
    }
    StringBuilder text = new StringBuilder();
    List<ReasoningBlock> reasoning = new ArrayList<>();
    List<ToolCall> calls = new ArrayList<>();
    for (JsonNode b : content) {
      switch (b.path("type").asText()) {
        case "text" -> text.append(b.path("text").asText());
        case "thinking" ->
            reasoning.add(new ReasoningBlock("thinking", b.path("thinking").asText(), null));
        case "tool_use" ->
            calls.add(
                new ToolCall(
                    b.path("id").asText("call"),
                    b.path("name").asText(),
                    b.path("input").toString()));
        case "tool_result" ->
            out.add(
                Message.toolResult(
                    b.path("tool_use_id").asText("call"), resultText(b.path("content"))));
        default -> {
          // images and other blocks: not text
        }
      }
    }
    if (text.length() > 0 || !reasoning.isEmpty() || !calls.isEmpty()) {
      Message.Builder mb = Message.builder(role).content(text.toString()).reasoning(reasoning);
      if (role == Role.ASSISTANT) {
        mb.toolCalls(calls);
      }
      out.add(0, mb.build());
    }
    return out;
  }

  private static String resultText(JsonNode content) {
    if (content.isTextual()) {
      return content.asText();
    }
    StringBuilder sb = new StringBuilder();
    for (JsonNode part : content) {
      if (part.path("type").asText().equals("text")) {
        sb.append(part.path("text").asText());
      }
    }
    return sb.toString();
  }

  private static Path findCorpus() {
    String prop = System.getProperty("compactor.corpus");
    if (prop != null) {
      Path p = Path.of(prop).resolve("claude-code");
      return Files.isDirectory(p) ? p : null;
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path c = p.resolve("shared").resolve("corpus").resolve("claude-code");
      if (Files.isDirectory(c)) {
        return c;
      }
    }
    return null;
  }
}
