package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.wire.json.MessageCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InspectCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private Path openAiFile() throws Exception {
    Path f = dir.resolve("chat.json");
    Files.writeString(
        f,
        """
        [{"role":"system","content":"You are terse."},
         {"role":"user","content":"List the files."},
         {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
           "function":{"name":"ls","arguments":"{}"}}]},
         {"role":"tool","tool_call_id":"c1","content":"a.txt\\nb.txt"},
         {"role":"assistant","content":"Two files: a.txt and b.txt."}]
        """);
    return f;
  }

  @Test
  void inspect_json_reportsFormatCountsWindowBudgetAndValidity() throws Exception {
    CliRunner r =
        CliRunner.run("inspect", openAiFile().toString(), "--model", "openai/gpt-4o", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("format").asText()).isEqualTo("openai-chat");
    assertThat(j.get("messages").asInt()).isEqualTo(5);
    assertThat(j.get("toolCalls").asInt()).isEqualTo(1);
    assertThat(j.get("toolResults").asInt()).isEqualTo(1);
    assertThat(j.get("byRole").get("tool").get("messages").asInt()).isEqualTo(1);
    assertThat(j.get("tokens").asLong())
        .isEqualTo(
            j.get("byRole").get("system").get("tokens").asLong()
                + j.get("byRole").get("user").get("tokens").asLong()
                + j.get("byRole").get("assistant").get("tokens").asLong()
                + j.get("byRole").get("tool").get("tokens").asLong());
    assertThat(j.get("window").get("tokens").asLong()).isEqualTo(128_000);
    assertThat(j.get("budget").get("source").asText()).isEqualTo("default");
    assertThat(j.get("invalid")).isEmpty();
  }

  @Test
  void inspect_explicitBudget_winsAndNamesItsSource() throws Exception {
    CliRunner r =
        CliRunner.run(
            "inspect",
            openAiFile().toString(),
            "--model",
            "openai/gpt-4o",
            "--context-budget",
            "50000",
            "--json");
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("budget").get("tokens").asLong()).isEqualTo(50_000);
    assertThat(j.get("budget").get("source").asText()).isEqualTo("--context-budget");
  }

  @Test
  void inspect_invalidBudget_failsNamingValueAndSource() throws Exception {
    for (String bad : List.of("0", "-5", "NaN", "abc", "1.5")) {
      CliRunner r = CliRunner.run("inspect", openAiFile().toString(), "--context-budget", bad);
      assertThat(r.exitCode()).isEqualTo(2);
      assertThat(r.err()).contains("\"" + bad + "\"").contains("--context-budget");
    }
  }

  @Test
  void inspect_invalidConversation_listsViolations_andExitsOne() throws Exception {
    Path f = dir.resolve("bad.jsonl");
    MessageCodec codec = new MessageCodec();
    Files.writeString(
        f,
        codec.writeLine(Message.builder(Role.USER).id("u1").content("hi").build())
            + "\n"
            + codec.writeLine(
                Message.builder(Role.TOOL).id("t1").toolCallId("ghost").content("x").build())
            + "\n");
    CliRunner r = CliRunner.run("inspect", f.toString(), "--json");
    assertThat(r.exitCode()).isEqualTo(1);
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("format").asText()).isEqualTo("compactor");
    assertThat(j.get("invalid")).hasSize(1);
    assertThat(j.get("invalid").get(0).get("kind").asText()).isEqualTo("ORPHAN_RESULT");
  }

  private Path storedConversation() {
    Path conv = dir.resolve("conv");
    try (StoredConversation c = StoredConversation.open(conv)) {
      c.append(Message.builder(Role.USER).id("u1").content("hello").build());
      c.append(
          Message.builder(Role.ASSISTANT)
              .id("a1")
              .toolCalls(List.of(new ToolCall("c1", "ls", "{}")))
              .build());
      c.append(Message.builder(Role.TOOL).id("t1").toolCallId("c1").content("a.txt").build());
    }
    return conv;
  }

  @Test
  void inspect_conversationDirectory_usesAnExplicitBudget_butPersistsNothing() throws Exception {
    Path conv = storedConversation();
    CliRunner first =
        CliRunner.run("inspect", conv.toString(), "--context-budget", "0.5", "--json");
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(JSON.readTree(first.out()).get("budget").get("tokens").asLong()).isEqualTo(64_000);
    CliRunner second = CliRunner.run("inspect", conv.toString(), "--json");
    JsonNode j = JSON.readTree(second.out());
    assertThat(j.get("format").asText()).isEqualTo("compactor-store");
    assertThat(j.get("budget").get("source").asText()).isEqualTo("default");

    // compact persists it, and inspect then reads it
    CliRunner compact = CliRunner.run("compact", conv.toString(), "--context-budget", "0.5");
    assertThat(compact.exitCode()).as(compact.err()).isZero();
    JsonNode third = JSON.readTree(CliRunner.run("inspect", conv.toString(), "--json").out());
    assertThat(third.get("budget").get("tokens").asLong()).isEqualTo(64_000);
    assertThat(third.get("budget").get("source").asText()).contains("persisted");
  }

  @Test
  void inspect_readOnlyDirectoryWithATornLastLine_reportsIt_andChangesNothing() throws Exception {
    Path conv = storedConversation();
    Files.write(
        conv.resolve("conversation.jsonl"),
        "{\"id\":\"u2\",\"role\":\"user\",\"cont".getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.APPEND);
    Files.deleteIfExists(conv.resolve(".lock")); // a read must not need or create it
    Map<Path, byte[]> bytes = new TreeMap<>();
    Map<Path, FileTime> times = new TreeMap<>();
    try (Stream<Path> all = Files.walk(conv)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        times.put(p, Files.getLastModifiedTime(p));
        if (Files.isRegularFile(p)) {
          bytes.put(p, Files.readAllBytes(p));
        }
        p.toFile().setReadOnly();
      }
    }

    CliRunner r = CliRunner.run("inspect", conv.toString(), "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("messages").asInt()).isEqualTo(3);
    assertThat(j.get("problems").toString())
        .contains("conversation.jsonl: its last line is incomplete (line 4, from byte ")
        .contains("left as it is");

    try (Stream<Path> all = Files.walk(conv)) {
      Set<Path> now = new TreeSet<>();
      for (Path p : (Iterable<Path>) all::iterator) {
        now.add(p);
        assertThat(Files.getLastModifiedTime(p)).as("mtime of %s", p).isEqualTo(times.get(p));
        if (Files.isRegularFile(p)) {
          assertThat(Files.readAllBytes(p)).as("bytes of %s", p).isEqualTo(bytes.get(p));
        }
      }
      assertThat(now).isEqualTo(times.keySet());
    }
    CliRunner strict = CliRunner.run("inspect", conv.toString(), "--strict");
    assertThat(strict.exitCode()).isEqualTo(2);
  }

  @Test
  void inspect_notAConversation_saysWhichFormatsWereTried() throws Exception {
    Path f = dir.resolve("data.csv");
    Files.writeString(f, "a,b,c\n1,2,3\n");
    CliRunner r = CliRunner.run("inspect", f.toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("gptme").contains("claude-code").contains("openai-chat");
  }

  @Test
  void sample_thenInspect_isValidAndDeterministic() throws Exception {
    Path a = dir.resolve("a.jsonl");
    Path b = dir.resolve("b.jsonl");
    assertThat(
            CliRunner.run("sample", "--turns", "30", "--seed", "3", "--out", a.toString())
                .exitCode())
        .isZero();
    CliRunner.run("sample", "--turns", "30", "--seed", "3", "--out", b.toString());
    assertThat(Files.readString(a)).isEqualTo(Files.readString(b));
    CliRunner r = CliRunner.run("inspect", a.toString(), "--json");
    assertThat(r.exitCode()).isZero();
    assertThat(JSON.readTree(r.out()).get("invalid")).isEmpty();
  }
}
