package dev.compactor.core.compaction.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MentionsTest {

  @Test
  void pythonTraceback_keepsErrorTestAndPathWithLine() {
    String out =
        """
        ============================= FAILURES =============================
        ___________________________ test_bar ___________________________
          File "src/foo.py", line 41, in lookup
            return table[key]
        KeyError: 'missing'
        FAILED tests/test_foo.py::test_bar - KeyError: 'missing'
        """;
    assertThat(Mentions.of(out, 8))
        .containsExactly("KeyError", "tests/test_foo.py::test_bar", "src/foo.py", "line 41");
  }

  @Test
  void javaStackTrace_keepsSimpleExceptionName_fileWithLine_andTestClass() {
    String out =
        """
        [ERROR] InvoiceServiceTest.totalsRoundPerLine:57 expected: <107.10> but was: <107.09>
        java.lang.NullPointerException: Cannot invoke "LineItem.price()"
        \tat com.acme.billing.InvoiceService.total(InvoiceService.java:88)
        """;
    List<String> m = Mentions.of(out, 8);
    assertThat(m)
        .startsWith("NullPointerException", "InvoiceServiceTest.totalsRoundPerLine")
        .contains("InvoiceService.java:88");
  }

  @Test
  void names_definedFirst_thenByUse_withoutTheExcludedOnes() {
    String out =
        """
        result = run_checks(cfg)
        def load_config(path):
            return ConfigLoader(path).read()
        run_checks(other)
        known_name(1)
        """;
    assertThat(Mentions.names(out, 3, java.util.Set.of("known_name")))
        .containsExactly("load_config", "run_checks", "ConfigLoader");
    assertThat(Mentions.names(out, 0, java.util.Set.of())).isEmpty();
  }

  @Test
  void prose_andUrls_areNotPaths() {
    assertThat(Mentions.of("Use and/or km/h, see https://example.com/docs/page for more.", 8))
        .isEmpty();
  }

  @Test
  void ids_issueNumbers_andCommitHashes() {
    assertThat(Mentions.of("Fixed in PR #645 (commit 3f9a2c1e), see ABC-123.", 8))
        .containsExactly("PR #645", "3f9a2c1e", "ABC-123");
    assertThat(Mentions.of("row id=4711 is locked", 8)).containsExactly("id=4711");
  }

  @Test
  void isBounded_inCountAndLength() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      sb.append("src/module").append(i).append("/File").append(i).append(".java\n");
    }
    sb.append("src/").append("x".repeat(200)).append(".py\n");
    List<String> m = Mentions.of(sb.toString(), 8);
    assertThat(m).hasSizeLessThanOrEqualTo(8).allMatch(s -> s.length() <= Mentions.MAX_LENGTH);
    assertThat(m).contains("src/module0/File0.java");
  }
}
