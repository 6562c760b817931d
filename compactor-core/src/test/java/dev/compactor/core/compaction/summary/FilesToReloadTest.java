package dev.compactor.core.compaction.summary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The extractive checkpoint's "files to reload" leave out what is not a file to work on. */
class FilesToReloadTest {
  @Test
  void extensionsSystemExecutablesAndDiffPrefixesAreNotFiles() {
    assertThat(ExtractiveSummarizer.reloadable(".py")).isNull();
    assertThat(ExtractiveSummarizer.reloadable("/usr/bin/env")).isNull();
    assertThat(ExtractiveSummarizer.reloadable("/dev/null")).isNull();
    assertThat(ExtractiveSummarizer.reloadable("a/src/app.py")).isEqualTo("src/app.py");
    assertThat(ExtractiveSummarizer.reloadable("b/README.md")).isEqualTo("README.md");
    assertThat(ExtractiveSummarizer.reloadable("src/a/b.py")).isEqualTo("src/a/b.py");
    assertThat(ExtractiveSummarizer.reloadable(".github/workflows/ci.yml"))
        .isEqualTo(".github/workflows/ci.yml");
    assertThat(ExtractiveSummarizer.reloadable(".env")).isNull();
  }

  @Test
  void aDiffAndAShebangDoNotListNoise() {
    List<Message> covered =
        List.of(
            Message.user("Fix the parser in src/parse.py"),
            Message.assistant(
                "", List.of(new ToolCall("c1", "edit_file", "{\"path\": \"src/parse.py\"}"))),
            Message.toolResult(
                "c1",
                "#!/usr/bin/env python\n--- a/src/parse.py\n+++ b/src/parse.py\n@@ -1 +1 @@\n"
                    + "-x\n+y\nAll .py files pass; see /dev/null"));
    Checkpoint c = new ExtractiveSummarizer().summarize(covered, null, null);
    assertThat(c.filesToReload())
        .extracting(Checkpoint.FileToReload::path)
        .contains("src/parse.py")
        .doesNotContain("a/src/parse.py", "b/src/parse.py", "/usr/bin/env", ".py", "/dev/null");
  }
}
