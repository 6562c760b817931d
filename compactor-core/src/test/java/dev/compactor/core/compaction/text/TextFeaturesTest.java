package dev.compactor.core.compaction.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.text.TextFeatures.IdentifierKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TextFeaturesTest {

  @Test
  void filePaths_findsPathsAndFileNames_butNotPackagesNumbersOrUrls() {
    String text =
        "Edited src/main/java/com/acme/InvoiceService.java and pom.xml. See /usr/lib/x.so,"
            + " ~/notes/todo.md and ./run.sh; package com.acme.billing uses item.price() at 0.2"
            + " e.g. in https://example.com/docs/page.html and and/or input/output.";
    assertThat(TextFeatures.filePaths(text))
        .containsExactly(
            "src/main/java/com/acme/InvoiceService.java",
            "pom.xml",
            "/usr/lib/x.so",
            "~/notes/todo.md",
            "./run.sh");
  }

  @Test
  void filePaths_trimsSentencePunctuation_andKeepsDotfiles() {
    assertThat(TextFeatures.filePaths("Look at README.md. Then .env, then docs/a.txt."))
        .containsExactly("README.md", ".env", "docs/a.txt");
  }

  @Test
  void forEachFilePath_withBaseNames_reportsTheFileNameOfAPathToo() {
    List<String> out = new ArrayList<>();
    TextFeatures.forEachFilePath("open src/app/Main.java now", true, out::add);
    assertThat(out).containsExactly("src/app/Main.java", "Main.java");
  }

  @Test
  void containsErrorWord_matchesTheFiveWordsInAnyCase() {
    assertThat(
            List.of(
                "BUILD FAILURE",
                "java.lang.NullPointerException",
                "Traceback (most recent call last):",
                "3 tests failed",
                "[ERROR] boom",
                // substring match, as gptme does ("terror" contains "error")
                "all tests passed, fail-safe retry, terror"))
        .allMatch(TextFeatures::containsErrorWord);
    assertThat(List.of("all green: 42 tests passed", ""))
        .noneMatch(TextFeatures::containsErrorWord);
  }

  @Test
  void identifiers_findsEveryKind() {
    Map<String, IdentifierKind> ids =
        TextFeatures.identifiers(
            "NullPointerException in src/Foo.java (see #1234 and BILL-42), call call_00042,"
                + " order 987654, said \"use HALF_EVEN rounding\" and `mvn -q test`;"
                + " java.lang.IllegalStateException; {\"path\": \"x\"} 123 2026");
    assertThat(ids)
        .containsEntry("NullPointerException", IdentifierKind.ERROR_NAME)
        .containsEntry("src/Foo.java", IdentifierKind.PATH)
        .containsEntry("#1234", IdentifierKind.ISSUE)
        .containsEntry("BILL-42", IdentifierKind.ISSUE)
        .containsEntry("call_00042", IdentifierKind.CALL_ID)
        .containsEntry("987654", IdentifierKind.NUMBER)
        .containsEntry("use HALF_EVEN rounding", IdentifierKind.QUOTED)
        .containsEntry("mvn -q test", IdentifierKind.QUOTED)
        .containsEntry("IllegalStateException", IdentifierKind.ERROR_NAME)
        .containsEntry("2026", IdentifierKind.NUMBER)
        .doesNotContainKeys("path", "123", "x");
  }

  @Test
  void identifiers_aQuotedPathIsReportedAsAPath() {
    assertThat(TextFeatures.identifiers("read \"docs/rounding.md\" first"))
        .containsEntry("docs/rounding.md", IdentifierKind.PATH);
  }

  @Test
  void containsFilePath_agreesWithFilePaths() {
    for (String t :
        List.of(
            "Look at README.md. Then .env, then docs/a.txt.",
            "version 1.2.3 of com.acme.billing, see https://example.com/a/b",
            "</think> and a/b but nothing with an extension",
            "src/main.py",
            "see .env and the Makefile.",
            "v1.2 is out. Then 3.14 and e.g. this",
            "Edit config.yaml.",
            "",
            "no paths here at all.")) {
      assertThat(TextFeatures.containsFilePath(t))
          .as(t)
          .isEqualTo(!TextFeatures.filePaths(t).isEmpty());
    }
  }
}
