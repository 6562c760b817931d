package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.testkit.TestPostgres;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.Reply;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code compactor task call/show/summarize}, in-process, against a local model server. */
class TaskCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A request for qwen3 with a provider-compaction threshold (ignored: not the Responses API). */
  private static final String HELLO_WITH_A_THRESHOLD =
      """
      {"model": "openai-compatible/qwen3",
       "compaction": {"provider": {"compact_threshold": "200_000"}},
       "messages": [{"role": "user", "content": "Hello"}]}
      """;

  /** A request whose provider-compaction threshold is out of range. */
  private static final String A_THRESHOLD_TOO_LOW =
      """
      {"model": "openai-compatible/m",
       "compaction": {"provider": {"compact_threshold": 999}},
       "messages": [{"role": "user", "content": "x"}]}
      """;

  @TempDir Path dir;
  private FakeModelServer server;

  /** An OpenAI-compatible Chat Completions server on 127.0.0.1 that echoes or summarizes. */
  @BeforeEach
  void startServer() {
    server =
        FakeModelServer.builder()
            .replyWith(
                r ->
                    Reply.text(
                            r.body().contains("Summarize this conversation excerpt")
                                ? "SUMMARY"
                                : "echo: "
                                    + r.items().get(r.items().size() - 1).path("content").asText())
                        .usage(50, 5))
            .start();
  }

  @AfterEach
  void stopServer() {
    assertThat(server.rejections()).as("requests a provider would refuse").isEmpty();
    server.close();
  }

  private String baseUrl() {
    return server.baseUrl();
  }

  private Path request(String name, String json) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, json);
    return f;
  }

  private CliRunner call(String db, String chat, Path request) {
    return CliRunner.run(
        CliRunner.taskCall(chat, db, request, "--tenant", "acme", "--base-url", baseUrl()));
  }

  @Test
  void call_printsTheResult_andShowPrintsTheStoredChat() throws Exception {
    String db = dir.resolve("chats.db").toString();
    CliRunner r = call(db, "c1", request("r1.json", HELLO_WITH_A_THRESHOLD));

    assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
    JsonNode out = JSON.readTree(r.out());
    assertThat(out.at("/message/content").asText()).isEqualTo("echo: Hello");
    assertThat(out.at("/usage/prompt_tokens").asInt()).isEqualTo(50);
    assertThat(out.at("/_gpt_chat_details/api").asText()).isEqualTo("chat_completions");
    assertThat(out.at("/_gpt_chat_details/compaction/provider/reason").asText())
        .isEqualTo("not_responses_api");
    assertThat(r.err()).doesNotContain("SLF4J");

    CliRunner show = CliRunner.run("task", "show", "--chat", "c1", "--tenant", "acme", "--db", db);

    assertThat(show.exitCode()).as(show.err()).isZero();
    JsonNode chat = JSON.readTree(show.out());
    assertThat(chat.get("tenant").asText()).isEqualTo("acme");
    assertThat(chat.get("model").asText()).isEqualTo("openai-compatible/qwen3");
    assertThat(chat.get("interactions").asInt()).isEqualTo(1);
    assertThat(chat.get("messages")).hasSize(2);
    assertThat(chat.at("/settings/given/provider/compact_threshold").asInt()).isEqualTo(200_000);
    assertThat(chat.at("/settings/effective/provider/enabled").asBoolean()).isTrue();
    assertThat(chat.get("summaries")).isEmpty();
  }

  @Test
  void call_readsTheRequestFromStandardInput() throws Exception {
    String db = dir.resolve("stdin.db").toString();
    InputStream old = System.in;
    try {
      System.setIn(
          new ByteArrayInputStream(
              "{\"model\": \"openai-compatible/m\", \"messages\": [{\"role\": \"user\", \"content\": \"piped\"}]}"
                  .getBytes(StandardCharsets.UTF_8)));
      CliRunner r =
          CliRunner.run(
              "task", "call", "--chat", "c", "--db", db, "--base-url", baseUrl(), "--request", "-");
      assertThat(r.exitCode()).as(r.err()).isZero();
      assertThat(JSON.readTree(r.out()).at("/message/content").asText()).isEqualTo("echo: piped");
    } finally {
      System.setIn(old);
    }
  }

  @Test
  void failedCall_printsTheErrorAsJson_exitsWith1_andStoresNothing() throws Exception {
    String db = dir.resolve("fail.db").toString();
    CliRunner r = call(db, "c2", request("bad.json", A_THRESHOLD_TOO_LOW));

    assertThat(r.exitCode()).isEqualTo(1);
    JsonNode err = JSON.readTree(r.out());
    assertThat(err.at("/error/code").asText()).isEqualTo("invalid_settings");
    assertThat(err.at("/error/message").asText()).contains("compact_threshold", "999");
    assertThat(r.err()).contains("invalid_settings");
    assertThat(server.requests()).isEmpty();

    CliRunner show = CliRunner.run("task", "show", "--chat", "c2", "--db", db);
    assertThat(show.exitCode()).isEqualTo(1);
    assertThat(JSON.readTree(show.out()).at("/error/code").asText()).isEqualTo("not_found");
  }

  @Test
  void summarize_onDemand_andShowListsTheSummaryRecord() throws Exception {
    String db = dir.resolve("sum.db").toString();
    StringBuilder turns = new StringBuilder();
    for (int i = 0; i < 14; i++) {
      turns
          .append(i == 0 ? "" : ",")
          .append("{\"role\": \"")
          .append(i % 2 == 0 ? "user" : "assistant")
          .append("\", \"content\": \"t")
          .append(i)
          .append("\"}");
    }
    assertThat(
            call(
                    db,
                    "c3",
                    request(
                        "fill.json",
                        "{\"model\": \"openai-compatible/m\", \"submit_to_model\": false,"
                            + " \"messages\": ["
                            + turns
                            + "]}"))
                .exitCode())
        .isZero();

    CliRunner r =
        CliRunner.run(
            "task",
            "summarize",
            "--chat",
            "c3",
            "--tenant",
            "acme",
            "--db",
            db,
            "--base-url",
            baseUrl());

    assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
    JsonNode out = JSON.readTree(r.out());
    assertThat(out.at("/summary/activated").asBoolean()).isTrue();
    assertThat(out.at("/summary/message_count_before").asInt()).isEqualTo(14);
    assertThat(out.at("/summary/message_count_after").asInt()).isEqualTo(11);
    JsonNode chat =
        JSON.readTree(
            CliRunner.run("task", "show", "--chat", "c3", "--tenant", "acme", "--db", db).out());
    assertThat(chat.at("/summaries/0/gpt_summary_uuid").asText())
        .isEqualTo(out.at("/summary/gpt_summary_uuid").asText());
    assertThat(chat.at("/summaries/0/trigger").asText()).isEqualTo("on_demand");
    assertThat(chat.get("archived_message_count").asInt()).isEqualTo(4);
  }

  @Test
  void postgresUrl_isAcceptedAsDb() throws Exception {
    String schema = TestPostgres.newSchema("chat_test");
    String db = TestPostgres.server().jdbcUrl(schema);
    try {
      CliRunner r =
          call(
              db,
              "pg",
              request(
                  "pg.json",
                  "{\"model\": \"openai-compatible/m\", \"messages\": [{\"role\": \"user\","
                      + " \"content\": \"pg\"}]}"));
      assertThat(r.exitCode()).as(r.err()).isZero();
      CliRunner show =
          CliRunner.run(
              "task",
              "show",
              "--chat",
              "pg",
              "--tenant",
              "acme",
              "--db",
              TestPostgres.server().uri(schema));
      assertThat(JSON.readTree(show.out()).get("messages")).hasSize(2);
    } finally {
      TestPostgres.dropSchema(schema);
    }
  }

  @Test
  void missingRequestFile_isAClearUsageError() {
    CliRunner r =
        CliRunner.run(
            "task",
            "call",
            "--chat",
            "c",
            "--db",
            dir.resolve("x.db").toString(),
            "--request",
            dir.resolve("nope.json").toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("no such file");
  }

  @Test
  void taskWithoutSubcommand_printsUsage() {
    CliRunner r = CliRunner.run("task");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("call", "show", "summarize");
  }

  @Test
  void aRequestFileWithInvalidUtf8_isAnErrorNamingTheFileAndOffset() throws Exception {
    byte[] ok =
        "{\"model\": \"openai/gpt-4o\", \"messages\": [{\"role\": \"user\", \"content\": \"caf"
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] all = java.util.Arrays.copyOf(ok, ok.length + 4);
    all[ok.length] = (byte) 0xE9; // Latin-1 é
    System.arraycopy(
        "\"}]}".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, all, ok.length + 1, 3);
    Path req = Files.write(dir.resolve("latin1.json"), all);
    CliRunner r = CliRunner.run(CliRunner.taskCall("c1", dir.resolve("u.db"), req));
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .contains("--request " + req)
        .contains("invalid byte 0xE9 at byte offset " + ok.length);
  }

  @Test
  void show_readsTheDatabaseWithoutWritingIt_andAMissingOneIsNotCreated() throws Exception {
    Path db = dir.resolve("ro.db");
    try (dev.compactor.chat.store.ChatStore s =
        dev.compactor.chat.store.ChatStores.open(db.toString())) {
      // created and migrated by a writer
    }
    byte[] before = Files.readAllBytes(db);
    java.nio.file.attribute.FileTime mtime = Files.getLastModifiedTime(db);
    java.util.Set<Path> files;
    try (var l = Files.list(dir)) {
      files = l.collect(java.util.stream.Collectors.toSet());
    }
    db.toFile().setReadOnly();

    CliRunner r = CliRunner.run("task", "show", "--chat", "c1", "--db", db.toString());
    assertThat(r.out()).contains("not_found");
    assertThat(Files.readAllBytes(db)).isEqualTo(before);
    assertThat(Files.getLastModifiedTime(db)).isEqualTo(mtime);
    try (var l = Files.list(dir)) {
      assertThat(l.collect(java.util.stream.Collectors.toSet())).isEqualTo(files);
    }

    Path missing = dir.resolve("none/chats.db");
    CliRunner m = CliRunner.run("task", "show", "--chat", "c1", "--db", missing.toString());
    assertThat(m.exitCode()).isEqualTo(2);
    assertThat(m.out()).contains("no chat database at");
    assertThat(dir.resolve("none")).doesNotExist();
  }
}
