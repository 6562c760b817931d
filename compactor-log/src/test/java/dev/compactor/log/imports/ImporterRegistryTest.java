package dev.compactor.log.imports;

import static dev.compactor.log.imports.Fixtures.json;
import static dev.compactor.log.imports.Fixtures.jsonl;
import static dev.compactor.log.imports.Fixtures.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImporterRegistryTest {
  @TempDir Path dir;

  private static final String CHAT =
      json(
          List.of(
              obj("role", "system", "content", "be brief"),
              obj("role", "user", "content", "hi"),
              obj("role", "assistant", "content", "hello")));

  private static final List<String> BUILT_INS =
      List.of(
          "compactor",
          "claude-code",
          "gptme",
          "tau-bench",
          "mini-swe-agent",
          "swe-agent",
          "anthropic-messages",
          "openai-chat");

  /** Reading {@code p} fails, and every format's reason for refusing it contains {@code reason}. */
  private static void assertEveryFormatRefuses(Path p, String reason) {
    assertThatThrownBy(() -> Importers.read(p))
        .isInstanceOf(ImportException.class)
        .satisfies(
            e ->
                assertThat(((ImportException) e).attempts().values())
                    .allSatisfy(v -> assertThat(v).contains(reason)));
  }

  /**
   * Reading the chat document as {@code format} fails, the message containing every one of {@code
   * parts}.
   */
  private void assertReadingChatAsFails(String format, String... parts) throws IOException {
    Path p = Fixtures.write(dir, "chat.json", CHAT);

    assertThatThrownBy(() -> Importers.read(p, format))
        .isInstanceOf(ImportException.class)
        .hasMessageContainingAll(parts);
  }

  @Test
  void builtIns_haveUniqueNamesAndDescriptions() {
    ImporterRegistry r = ImporterRegistry.builtIns();
    assertThat(r.names()).containsExactlyElementsOf(BUILT_INS);
    for (String n : r.names()) {
      assertThat(r.get(n).description()).isNotBlank();
    }
    assertThat(Importers.registry().names()).containsAll(BUILT_INS);
  }

  @Test
  void read_gzipIsRecognisedByMagicBytes_whateverTheFileName() throws IOException {
    Path disguised = Fixtures.writeGzip(dir, "chat.json", CHAT);
    Path named = Fixtures.writeGzip(dir, "chat.json.gz", CHAT);

    ImportResult a = Importers.read(disguised);
    ImportResult b = Importers.read(named);

    assertThat(a.format()).isEqualTo("openai-chat");
    assertThat(a.single().messages())
        .extracting(Message::content)
        .containsExactly("be brief", "hi", "hello");
    assertThat(b.single().messages()).hasSize(3);
    assertThat(b.single().name()).isEqualTo("chat");
  }

  @Test
  void read_plainTextNamedGz_isReadAsText() throws IOException {
    Path p = Fixtures.write(dir, "chat.json.gz", CHAT);

    assertThat(Importers.read(p).single().messages()).hasSize(3);
  }

  @Test
  void read_leavesTheSourceUntouched() throws IOException {
    Path p = Fixtures.write(dir, "chat.json", CHAT);
    Files.setLastModifiedTime(p, FileTime.fromMillis(1_000_000_000_000L));
    byte[] before = Files.readAllBytes(p);

    Importers.read(p);

    assertThat(Files.readAllBytes(p)).isEqualTo(before);
    assertThat(Files.getLastModifiedTime(p).toMillis()).isEqualTo(1_000_000_000_000L);
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(p);
    }
  }

  @Test
  void read_randomJson_failsListingEveryFormatAndWhy() throws IOException {
    Path p = Fixtures.write(dir, "config.json", json(obj("name", "x", "port", 8080)));

    assertThatThrownBy(() -> Importers.read(p))
        .isInstanceOf(ImportException.class)
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("config.json")
        .hasMessageContaining("none of the known formats")
        .satisfies(
            e -> {
              ImportException ie = (ImportException) e;
              assertThat(ie.attempts()).containsKeys(BUILT_INS.toArray(String[]::new));
              assertThat(ie.attempts().values()).allSatisfy(v -> assertThat(v).isNotBlank());
              for (String name : BUILT_INS) {
                assertThat(e.getMessage()).contains("\n  " + name + ": ");
              }
              assertThat(ie.attempts().get("openai-chat")).contains("name, port");
            });
  }

  @Test
  void read_csv_failsWithEveryFormatsReason() throws IOException {
    Path p = Fixtures.write(dir, "data.csv", "id,name\n1,alpha\n2,beta\n");

    assertThatThrownBy(() -> Importers.read(p))
        .isInstanceOf(ImportException.class)
        .hasMessageContaining("data.csv")
        .satisfies(
            e -> {
              Map<String, String> attempts = ((ImportException) e).attempts();
              assertThat(attempts).hasSize(BUILT_INS.size());
              assertThat(attempts.get("gptme")).contains("not JSON");
              assertThat(attempts.get("claude-code")).contains("not JSON");
              assertThat(attempts.get("tau-bench")).contains("not one JSON document");
            });
  }

  @Test
  void read_emptyFile_failsSayingItIsEmpty() throws IOException {
    Path p = Fixtures.write(dir, "empty.jsonl", "\n  \n");

    assertEveryFormatRefuses(p, "empty");
  }

  @Test
  void read_binaryFile_failsSayingItIsBinary() throws IOException {
    byte[] bytes = new byte[4096];
    new java.util.Random(7).nextBytes(bytes);
    bytes[10] = 0;
    Path p = Files.write(dir.resolve("blob.bin"), bytes);

    assertEveryFormatRefuses(p, "binary");
  }

  @Test
  void read_missingFile_failsNamingIt() {
    Path p = dir.resolve("nope.jsonl");

    assertThatThrownBy(() -> Importers.read(p))
        .isInstanceOf(ImportException.class)
        .hasMessageContaining("nope.jsonl");
  }

  @Test
  void read_explicitFormat_skipsDetection() throws IOException {
    // A plain role/content array: detection picks openai-chat, but anthropic-messages can read it.
    Path p = Fixtures.write(dir, "chat.json", CHAT);

    ImportResult r = Importers.read(p, "anthropic-messages");

    assertThat(r.format()).isEqualTo("anthropic-messages");
    assertThat(r.single().messages())
        .extracting(Message::role)
        .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT);
  }

  @Test
  void read_explicitFormatThatDoesNotFit_failsWithTheReason() throws IOException {
    assertReadingChatAsFails("tau-bench", "as tau-bench", "chat.json");
  }

  @Test
  void read_unknownFormat_failsNamingTheKnownOnes() throws IOException {
    assertReadingChatAsFails("yaml-chat", "\"yaml-chat\"", "gptme, tau-bench");
  }

  @Test
  void with_aSecondImporterOfTheSameName_isRejected() {
    ImporterRegistry r = ImporterRegistry.builtIns();

    assertThatThrownBy(() -> r.with(new FixedImporter("gptme", 99)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"gptme\"");
  }

  @Test
  void with_aNewFormat_isDetectedAndWinsWhenMoreConfident() throws IOException {
    ImporterRegistry r = ImporterRegistry.builtIns().with(new FixedImporter("native", 99));
    Path p = Fixtures.write(dir, "chat.json", CHAT);

    ImportResult result = r.read(p);

    assertThat(r.names()).endsWith("native");
    assertThat(result.format()).isEqualTo("native");
    assertThat(result.single().name()).isEqualTo("fixed");
  }

  @Test
  void read_whenTheMostConfidentFormatFailsToRead_theNextOneReads() throws IOException {
    ImporterRegistry r = ImporterRegistry.builtIns().with(new FailingImporter());
    Path p = Fixtures.write(dir, "chat.json", CHAT);

    assertThat(r.read(p).format()).isEqualTo("openai-chat");
  }

  @Test
  void read_whenEveryMatchFailsToRead_theErrorSaysWhy() throws IOException {
    ImporterRegistry r = ImporterRegistry.of(new FailingImporter());
    Path p = Fixtures.write(dir, "chat.json", CHAT);

    assertThatThrownBy(() -> r.read(p))
        .isInstanceOf(ImportException.class)
        .hasMessageContaining("no format could read it")
        .hasMessageContaining(
            "broken: looked like it (always) but reading failed: reading failed on purpose");
  }

  @Test
  void importResult_single_failsForSeveralConversations() throws IOException {
    Path p =
        Fixtures.write(
            dir,
            "runs.json",
            json(
                List.of(
                    obj(
                        "task_id",
                        1,
                        "trial",
                        0,
                        "traj",
                        List.of(obj("role", "user", "content", "a"))),
                    obj(
                        "task_id",
                        2,
                        "trial",
                        0,
                        "traj",
                        List.of(obj("role", "user", "content", "b"))))));

    ImportResult r = Importers.read(p);

    assertThat(r.conversations()).hasSize(2);
    assertThatThrownBy(r::single)
        .isInstanceOf(ImportException.class)
        .hasMessageContaining("2 conversations");
  }

  @Test
  void detection_rejectsInconsistentValues() {
    assertThatThrownBy(() -> Detection.match(0, "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Detection.reject(" ")).isInstanceOf(IllegalArgumentException.class);
    assertThat(Detection.reject("no").confidence()).isZero();
  }

  @Test
  void importSource_baseNameDropsCompressionAndTranscriptExtensions() throws IOException {
    assertThat(Fixtures.source("a.traj.json.gz", "").baseName()).isEqualTo("a");
    assertThat(Fixtures.source("session.jsonl", "").baseName()).isEqualTo("session");
    assertThat(Fixtures.source("x.traj", "").baseName()).isEqualTo("x");
    assertThat(Fixtures.source("notes.txt", "").baseName()).isEqualTo("notes.txt");
    assertThat(Fixtures.source("a.jsonl", jsonl(List.of(obj("a", 1)))).firstLines(5)).hasSize(1);
  }

  /** Reads anything as one fixed conversation. */
  private record FixedImporter(String name, int confidence) implements Importer {
    @Override
    public Detection detect(ImportSource source) {
      return Detection.match(confidence, "always");
    }

    @Override
    public List<ImportedConversation> read(ImportSource source) {
      return List.of(
          new ImportedConversation("fixed", List.of(Message.user("x")), Map.of(), List.of()));
    }
  }

  /** Claims every source, then fails. */
  private static final class FailingImporter implements Importer {
    @Override
    public String name() {
      return "broken";
    }

    @Override
    public Detection detect(ImportSource source) {
      return Detection.match(100, "always");
    }

    @Override
    public List<ImportedConversation> read(ImportSource source) {
      throw new ImportException("reading failed on purpose");
    }
  }
}
