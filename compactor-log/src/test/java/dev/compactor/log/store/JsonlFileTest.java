package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonlFileTest {
  @TempDir Path dir;

  private static final Function<String, String> STRICT =
      s -> {
        if (!s.startsWith("{") || !s.strip().endsWith("}")) {
          throw new IllegalArgumentException("not an object: " + s);
        }
        return s.strip();
      };

  @Test
  void scan_rangesAreByteOffsets_skippingBlankLinesBomAndMultiByteText() throws IOException {
    Path f = dir.resolve("f.jsonl");
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    Files.write(f, bom);
    Files.writeString(f, "{\"é\"}\n\n{\"b\"}\r\n", java.nio.file.StandardOpenOption.APPEND);

    JsonlFile.Scan<String> scan = JsonlFile.scan(f, STRICT);

    assertThat(scan.lines()).hasSize(2);
    JsonlFile.Line<String> first = scan.lines().get(0);
    assertThat(first.value()).isEqualTo("{\"é\"}");
    assertThat(first.number()).isEqualTo(1);
    assertThat(first.start()).isEqualTo(3);
    assertThat(first.end()).isEqualTo(3 + "{\"é\"}".getBytes(StandardCharsets.UTF_8).length);
    JsonlFile.Line<String> second = scan.lines().get(1);
    assertThat(second.number()).isEqualTo(3);
    assertThat(second.start()).isEqualTo(first.end() + 2);
    assertThat(scan.repair()).isEqualTo(JsonlFile.Repair.NONE);
    assertThat(scan.validLength()).isEqualTo(Files.size(f));
  }

  @Test
  void append_whenWriteAndRollbackFail_marksFileDamagedAndRefusesFurtherAppends() {
    Path f = dir.resolve("g.jsonl");
    JsonlFile file = JsonlFile.openForAppend(f, JsonlFile.scan(f, STRICT));
    file.close(); // every channel operation now fails, the rollback too

    assertThatThrownBy(() -> file.append("{}"))
        .isInstanceOf(LogIOException.class)
        .hasMessageContaining(f.toString());
    assertThat(file.damaged()).isTrue();
    assertThatThrownBy(() -> file.append("{}"))
        .isInstanceOf(LogIOException.class)
        .hasMessageContaining("could not be rolled back");
  }

  @Test
  void append_returnsRangeOfTheLineWithoutItsBreak() throws IOException {
    Path f = dir.resolve("h.jsonl");
    JsonlFile file = JsonlFile.openForAppend(f, JsonlFile.scan(f, STRICT));
    try {
      long[] a = file.append("{\"a\"}");
      long[] b = file.append("{\"ü\"}");
      assertThat(a).containsExactly(0, 5);
      assertThat(b).containsExactly(6, 6 + 6);
      assertThat(new String(file.read(b[0], b[1]), StandardCharsets.UTF_8)).isEqualTo("{\"ü\"}");
      assertThat(file.lineCount()).isEqualTo(2);
    } finally {
      file.close();
    }
    assertThat(Files.readString(f)).isEqualTo("{\"a\"}\n{\"ü\"}\n");
  }
}
