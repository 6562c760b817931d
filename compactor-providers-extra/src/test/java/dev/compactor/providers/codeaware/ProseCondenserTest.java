package dev.compactor.providers.codeaware;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProseCondenserTest {
  private static final String CODE =
      """
      ```java
      // Round each line, then sum.   Comments and   spacing stay exactly.
      BigDecimal total = items.stream()
          .map(i -> i.price().setScale(2, RoundingMode.HALF_EVEN))
          .reduce(BigDecimal.ZERO, BigDecimal::add);
      ```""";

  @Test
  void keepsCodeVerbatim_andFirstSentencePlusFileAndErrorSentences() {
    String text =
        "I looked at how the totals are computed. The rounding happened after summing."
            + " The fix is in src/main/java/InvoiceService.java. It is a small change.\n"
            + "The old code threw an ArithmeticException on some inputs. Nothing else moved.\n\n"
            + CODE
            + "\n\nThis keeps the public API unchanged. I will not touch the exporter.";
    assertThat(ProseCondenser.condense(text))
        .isEqualTo(
            "I looked at how the totals are computed. The fix is in"
                + " src/main/java/InvoiceService.java. The old code threw an ArithmeticException"
                + " on some inputs. […]\n\n"
                + CODE
                + "\n\nThis keeps the public API unchanged. […]");
  }

  @Test
  void isIdempotent() {
    String text =
        "First. Second mentions pom.xml. Third.\n\n- one\n- two\n- three fails\n\n"
            + CODE
            + "\n\n# Heading\n\nLast one. Really last.";
    String once = ProseCondenser.condense(text);
    assertThat(ProseCondenser.condense(once)).isEqualTo(once);
    assertThat(once).contains("- one\n- three fails\n[…]").contains("# Heading");
  }

  @Test
  void unclosedFence_keepsTheRestAsCode() {
    String text = "Intro. Dropped.\n\n~~~~\nnot. prose. at. all.\n~~~\nstill code.";
    assertThat(ProseCondenser.condense(text))
        .isEqualTo("Intro. […]\n\n~~~~\nnot. prose. at. all.\n~~~\nstill code.");
  }

  @Test
  void indentedCode_isKept() {
    String text = "Intro. Dropped.\n\n    int x = 1; // one. two.\n    int y = 2;";
    assertThat(ProseCondenser.condense(text))
        .endsWith("    int x = 1; // one. two.\n    int y = 2;");
  }

  @Test
  void hasFencedCode_detectsBackticksAndTildes() {
    assertThat(ProseCondenser.hasFencedCode("a\n```\nb\n```")).isTrue();
    assertThat(ProseCondenser.hasFencedCode("a\n  ~~~py\nb")).isTrue();
    assertThat(ProseCondenser.hasFencedCode("inline ``` is not a fence")).isFalse();
  }
}
