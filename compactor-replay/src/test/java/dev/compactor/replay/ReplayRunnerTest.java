package dev.compactor.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayRunnerTest {
  @TempDir Path dir;

  @Test
  void expand_aDirectoryIsItsFilesInPathOrderWithoutNotes_aFileItself() throws IOException {
    Files.createDirectories(dir.resolve("set/sub"));
    Path b = Files.writeString(dir.resolve("set/b.jsonl"), "");
    Path a = Files.writeString(dir.resolve("set/sub/a.json"), "");
    Files.writeString(dir.resolve("set/README.MD"), "notes");
    Path single = Files.writeString(dir.resolve("single.json.gz"), "");

    assertThat(ReplayRunner.expand(List.of(single, dir.resolve("set"))))
        .containsExactly(single, b, a);
  }

  @Test
  void expand_aMissingPath_orNoFileAtAll_fails() throws IOException {
    Path missing = dir.resolve("nope");
    assertThatThrownBy(() -> ReplayRunner.expand(List.of(missing)))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("no such file or directory: " + missing);
    Path empty = Files.createDirectory(dir.resolve("empty"));
    assertThatThrownBy(() -> ReplayRunner.expand(List.of(empty)))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("no files to replay in [" + empty + "]");
  }
}
