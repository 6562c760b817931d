package dev.compactor.wire.golden;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.testkit.corpus.SharedCorpus;
import dev.compactor.wire.anthropic.AnthropicContent;
import dev.compactor.wire.anthropic.AnthropicMessages;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Round trips over the real transcripts of the shared corpus ({@code ../shared/corpus}, see its
 * README): OpenAI chat arrays of mini-swe-agent and tau-bench, and the Anthropic content blocks of
 * Claude Code sessions. Skips with a message when the corpus is absent, and fails then in CI
 * ({@link SharedCorpus}).
 */
class CorpusRoundTripTest {

  private static Path corpus() {
    return SharedCorpus.require("CorpusRoundTripTest");
  }

  private static String gunzip(Path p) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<Path> files(Path dir, String suffix) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
    }
  }

  /** Every message re-encoded unchanged is its source object; decode(encode) keeps the rest. */
  private static int checkOpenAiArray(JsonNode array, String where) {
    List<Message> decoded = ChatCompletionsMessages.decode(array, where).messages();
    assertThat(decoded).as(where).hasSize(array.size());
    ArrayNode encoded = Json.array();
    List<Message> sent = new ArrayList<>();
    for (int i = 0; i < decoded.size(); i++) {
      Message m = decoded.get(i);
      JsonNode source = array.get(i);
      assertThat(Json.write(ChatCompletionsMessages.reencode(m, source)))
          .as("%s[%d] re-encoded unchanged", where, i)
          .isEqualTo(Json.write(source));
      if (!m.uiOnly()) {
        encoded.add(ChatCompletionsMessages.encode(m));
        sent.add(m);
      }
    }
    List<Message> again = ChatCompletionsMessages.decode(encoded, where).messages();
    assertThat(again).hasSameSizeAs(sent);
    for (int i = 0; i < sent.size(); i++) {
      assertThat(again.get(i))
          .as("%s sent message %d", where, i)
          .usingRecursiveComparison()
          .comparingOnlyFields("role", "content", "toolCalls", "toolCallId")
          .isEqualTo(sent.get(i));
    }
    return decoded.size();
  }

  @Test
  void miniSweAgent_openAiMessages_roundTrip() throws IOException {
    Path dir = corpus().resolve("mini-swe-agent");
    int messages = 0;
    List<Path> files = files(dir, ".traj.json.gz");
    assertThat(files).isNotEmpty();
    for (Path f : files) {
      JsonNode root = Json.TRANSCRIPTS.readTree(gunzip(f));
      messages += checkOpenAiArray(root.get("messages"), f.getFileName() + " messages");
    }
    System.out.println(
        "mini-swe-agent: "
            + files.size()
            + " trajectories, "
            + messages
            + " messages round-tripped");
  }

  @Test
  void tauBench_openAiMessages_roundTrip() throws IOException {
    Path dir = corpus().resolve("tau-bench");
    int messages = 0;
    int runs = 0;
    for (Path f : files(dir, ".json.gz")) {
      for (JsonNode run : Json.TRANSCRIPTS.readTree(gunzip(f))) {
        messages += checkOpenAiArray(run.get("traj"), f.getFileName() + " run " + runs++);
      }
    }
    assertThat(runs).isPositive();
    System.out.println("tau-bench: " + runs + " runs, " + messages + " messages round-tripped");
  }

  @Test
  void claudeCode_anthropicBlocks_roundTrip() throws IOException {
    Path dir = corpus().resolve("claude-code");
    int assistant = 0;
    int turns = 0;
    for (Path f : files(dir, ".jsonl.gz")) {
      try (BufferedReader r =
          new BufferedReader(
              new InputStreamReader(
                  new GZIPInputStream(Files.newInputStream(f)), StandardCharsets.UTF_8))) {
        String line;
        int lineNo = 0;
        while ((line = r.readLine()) != null) {
          lineNo++;
          JsonNode event = Json.TRANSCRIPTS.readTree(line);
          JsonNode msg = event.path("message");
          String type = event.path("type").asText();
          if (!(type.equals("assistant") || type.equals("user")) || !msg.has("content")) {
            continue;
          }
          String at = f.getFileName() + " line " + lineNo;
          // the turn as a request carries it: role and content
          ObjectNode source = Json.object();
          source.set("role", msg.get("role"));
          source.set("content", msg.get("content"));
          List<Message> turn = AnthropicMessages.decode(Json.array().add(source)).messages();
          assertThat(Json.write(AnthropicMessages.reencodeTurn(turn, source)))
              .as("%s re-encoded unchanged", at)
              .isEqualTo(Json.write(source));
          turns++;
          if (!type.equals("assistant") || !msg.path("content").isArray()) {
            continue;
          }
          AnthropicContent.AssistantParts parts = new AnthropicContent.AssistantParts();
          AnthropicContent.addAssistant(msg.get("content"), parts);
          Message m =
              Message.builder(Role.ASSISTANT)
                  .content(parts.text())
                  .reasoning(parts.reasoning)
                  .toolCalls(parts.calls)
                  .build();
          AnthropicMessages.Conversation c = AnthropicMessages.encode(List.of(m), "(start)");
          if (c.messages().size() < 2) {
            continue; // nothing a model would be sent
          }
          assistant++;
          List<Message> back =
              AnthropicMessages.decode(Json.object().set("messages", c.messages())).messages();
          Message again = back.get(back.size() - 1);
          assertThat(again.content()).as(at).isEqualTo(m.content());
          assertThat(again.toolCalls()).as(at).isEqualTo(m.toolCalls());
          assertThat(again.reasoning())
              .as(at)
              .isEqualTo(
                  m.reasoning().stream()
                      .filter(b -> b.signature() != null || b.type().equals("redacted_thinking"))
                      .toList());
        }
      }
    }
    assertThat(assistant).isPositive();
    System.out.println(
        "claude-code: "
            + assistant
            + " assistant messages round-tripped, "
            + turns
            + " turns re-encoded unchanged byte for byte");
  }
}
