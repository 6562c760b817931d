package dev.compactor.log.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The importers of one-JSON-document formats name each skipped entry by its index and by where it
 * starts in the file (line, column, byte offset), as the JSON-lines importers name line and byte.
 */
class JsonDocumentLocationsTest {
  private static int bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void openAiArray_namesTheLineColumnAndByteOfEachSkippedEntry() {
    String l1 = "[{\"role\":\"user\",\"content\":\"héllo\"},";
    String l2 = "  {\"content\":\"no role\"},";
    String l3 = "  42,";
    String text = l1 + "\n" + l2 + "\n" + l3 + "\n {\"role\":\"assistant\",\"content\":\"ok\"}]\n";
    ImportResult r = ImporterRegistry.builtIns().read(Fixtures.source("chat.json", text));
    assertThat(r.format()).isEqualTo("openai-chat");
    String p = r.single().problems().get(0);
    assertThat(p)
        .startsWith("2 entries of messages skipped: ")
        .contains("messages[1] (line 2, column 3, byte " + (bytes(l1) + 1 + 2) + ") has no role")
        .contains(
            "messages[2] (line 3, column 3, byte "
                + (bytes(l1) + bytes(l2) + 2 + 2)
                + ") is not an object");
  }

  @Test
  void requestBodies_tauBenchRuns_andGzip_areLocatedToo() throws Exception {
    String body =
        "{\"model\":\"gpt-4o\",\n\"messages\":[{\"role\":\"user\",\"content\":\"a\"},\n7]}";
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(body.getBytes(StandardCharsets.UTF_8));
    }
    ImportResult r =
        ImporterRegistry.builtIns().read(ImportSource.of("body.json.gz", gz.toByteArray()));
    assertThat(r.single().problems().get(0))
        .as("offsets in the decompressed content")
        .contains(
            "messages[1] (line 3, column 1, byte " + body.indexOf("7]") + ") is not an object");

    String tau =
        "[{\"task_id\":1,\"trial\":0,\"reward\":1,\"info\":{},\"traj\":[{\"role\":\"user\",\"content\":\"a\"}]},\n"
            + "{\"task_id\":2,\"trial\":0,\"reward\":1,\"info\":{},\"traj\":[{\"role\":\"user\",\"content\":\"b\"},"
            + " \"oops\"]}]";
    ImportResult t = ImporterRegistry.builtIns().read(Fixtures.source("tau.json", tau));
    assertThat(t.format()).isEqualTo("tau-bench");
    assertThat(t.conversations().get(1).problems().get(0))
        .contains("traj[1] (line 2, column ")
        .contains("byte " + tau.indexOf("\"oops\"") + ") is not an object");
  }

  @Test
  void anthropicMessages_nameTheSkippedMessage() {
    String text =
        "{\"system\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},\n {\"content\":\"x\"},"
            + " {\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ls\",\"input\":{}}]}]}";
    ImportResult r = ImporterRegistry.builtIns().read(Fixtures.source("a.json", text));
    assertThat(r.format()).isEqualTo("anthropic-messages");
    assertThat(r.single().problems().get(0))
        .contains(
            "messages[1] (line 2, column 2, byte "
                + text.indexOf("{\"content\":\"x\"}")
                + ") has no role");
  }

  @Test
  void aFatalBadList_isNamedByWhereItStands() {
    String tau =
        "[{\"task_id\":1,\"trial\":0,\"traj\":[{\"role\":\"user\",\"content\":\"a\"}]},\n"
            + " {\"task_id\":2,\"trial\":0,\"traj\":5}]";
    assertThatThrownBy(() -> ImporterRegistry.builtIns().read(Fixtures.source("tau.json", tau)))
        .isInstanceOf(ImportException.class)
        .hasMessageContaining("entry 1 traj is a number value, not an array of messages")
        .hasMessageContaining(
            "(entry at line 2, column 2, byte " + tau.indexOf("{\"task_id\":2") + ")");

    String chat = "{\"messages\":\n  [ {\"content\":\"no role\"} ]}";
    assertThatThrownBy(
            () -> ImporterRegistry.builtIns().read(Fixtures.source("c.json", chat), "openai-chat"))
        .isInstanceOf(ImportException.class)
        .hasMessageContaining("messages[0] has no string \"role\"")
        .hasMessageContaining("(line 2, column 5, byte " + chat.indexOf("{\"content\"") + ")");
  }

  @Test
  void locate_leavesOutWhatIsNotThere() throws Exception {
    ImportSource s = Fixtures.source("x.json", "{\"a\":[1,2],\"b\":{\"c\":[3]}}");
    assertThat(s.locate(List.of("b", "c"), Set.of(0, 5))).containsOnlyKeys(0);
    assertThat(s.locate(List.of("a"), Set.of(1)).get(1)).isEqualTo("line 1, column 9, byte 8");
    assertThat(s.locate(List.of("zz"), Set.of(0))).isEmpty();
    assertThat(s.locate(List.of(), Set.of(0))).as("the root is an object").isEmpty();
  }
}
