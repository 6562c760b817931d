package dev.compactor.core.compaction.summary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.compaction.summary.Checkpoint.FileToReload;
import dev.compactor.core.message.Message;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExtractiveSummarizerTest {
  private final ExtractiveSummarizer summarizer = new ExtractiveSummarizer();

  private static List<Message> session() {
    return new Conv()
        .user("The invoice totals are off by a cent. Find out why and fix it.")
        .tool("read_file", "{\"path\":\"src/Invoice.java\"}", "class Invoice {}")
        .assistant(
            "The rounding happens after summing. I decided to use HALF_EVEN per line instead of"
                + " rounding the total.")
        .tool("edit_file", "{\"path\":\"src/Invoice.java\",\"old\":\"a\",\"new\":\"b\"}", "ok")
        .tool("edit_file", "{\"path\":\"src/Invoice.java\",\"old\":\"b\",\"new\":\"c\"}", "ok")
        .tool("read_file", "{\"path\":\"docs/rounding.md\"}", "# Rounding")
        .user("Tax must be rounded per line, never on the total. Also keep the API unchanged.")
        .tool("edit_file", "{\"path\":\"src/Invoice.java\",\"old\":\"c\",\"new\":\"d\"}", "ok")
        .tool(
            "shell",
            "{\"command\":\"mvn -q test\"}",
            "[INFO] Running InvoiceTest\n[ERROR] Tests run: 12, Failures: 1\n"
                + "[ERROR] InvoiceTest.zeroItems:42 expected: <0.00> but was: <null>\n"
                + "[INFO] BUILD FAILURE")
        .assistant(
            "Eleven tests pass. The zero-items test still fails. TODO: handle empty invoices."
                + " Next I will add a guard in Invoice.total().")
        .user("Also add a test for negative quantities.")
        .build();
  }

  @Test
  void objective_quotesTheFirstAndTheLatestRequestVerbatim() {
    Checkpoint c = summarizer.summarize(session(), null, null);
    assertThat(c.objective())
        .startsWith(
            "First request (m0): The invoice totals are off by a cent. Find out why and fix it.")
        .contains("Other requests:\n- (m10) Tax must be rounded per line")
        .endsWith("Latest request (m16): Also add a test for negative quantities.");
  }

  @Test
  void theContextManagersNotice_isNeitherARequestNorAnOpenItem() {
    List<Message> m = new java.util.ArrayList<>(session());
    m.add(
        Message.builder(dev.compactor.core.message.Role.USER)
            .id("notice")
            .content(
                "[Context notice from the context manager, not from the user] At the next safe"
                    + " sub-task boundary, write down the next move.")
            .metadata(
                new dev.compactor.core.message.MessageMetadata(
                    null,
                    null,
                    null,
                    null,
                    java.util.Map.of(ExtractiveSummarizer.CONTEXT_NOTICE_KEY, "main")))
            .build());
    Checkpoint c = summarizer.summarize(m, null, null);
    assertThat(c.objective())
        .endsWith("Latest request (m16): Also add a test for negative quantities.");
    assertThat(c.render()).doesNotContain("Context notice").doesNotContain("next safe");
  }

  @Test
  void objective_clipsLongRequestsAtASentenceBoundary() {
    String longRequest = "Please do this carefully. ".repeat(60);
    Checkpoint c = summarizer.summarize(new Conv().user(longRequest).build(), null, null);
    assertThat(c.objective()).endsWith(" […]").hasSizeLessThan(700);
  }

  @Test
  void decisions_comeFromDecisionSentences_andUserConstraints() {
    Checkpoint c = summarizer.summarize(session(), null, null);
    assertThat(c.decisions())
        .containsExactly(
            "I decided to use HALF_EVEN per line instead of rounding the total.",
            "User: Tax must be rounded per line, never on the total.",
            "User: Also keep the API unchanged.");
  }

  @Test
  void currentState_hasTheLatestProse_andTheLatestToolOutcomes() {
    Checkpoint c = summarizer.summarize(session(), null, null);
    assertThat(c.currentState())
        .startsWith("Latest progress (m15): Eleven tests pass. The zero-items test still fails.")
        .contains(
            "`shell {\"command\":\"mvn -q test\"}` (m14): [ERROR] Tests run: 12, Failures: 1 |"
                + " [ERROR] InvoiceTest.zeroItems:42 expected: <0.00> but was: <null> | [INFO]"
                + " BUILD FAILURE (4 lines)")
        .contains("Summarized 17 messages (m0 to m16): 3 user, 8 assistant, 6 tool results.");
  }

  @Test
  void openItems_haveTodosStillFailingWork_andTheUnansweredRequest() {
    Checkpoint c = summarizer.summarize(session(), null, null);
    assertThat(c.openItems())
        .containsExactly(
            "The zero-items test still fails.",
            "TODO: handle empty invoices.",
            "Next I will add a guard in Invoice.total().",
            "Unanswered request (m16): Also add a test for negative quantities.");
  }

  @Test
  void filesToReload_rankedByEditsReadsAndRecency_withReasons() {
    Checkpoint c = summarizer.summarize(session(), null, null);
    assertThat(c.filesToReload().get(0))
        .isEqualTo(new FileToReload("src/Invoice.java", "edited 3×, read 1×; last in m11"));
    assertThat(c.filesToReload().get(1))
        .isEqualTo(new FileToReload("docs/rounding.md", "read 1×; last in m8"));
  }

  @Test
  void previousCheckpoint_isCarriedForward() {
    Checkpoint previous =
        new Checkpoint(
            "First request (m0): Build the billing module.",
            List.of("Use PostgreSQL."),
            "Schema done.",
            List.of("Write the importer."),
            List.of(new FileToReload("db/schema.sql", "edited 2×; last in m3")),
            List.of());
    Checkpoint c = summarizer.summarize(session().subList(10, 17), previous, null);
    assertThat(c.objective())
        .startsWith("First request (m0): Build the billing module.")
        .endsWith("Latest request (m16): Also add a test for negative quantities.");
    assertThat(c.decisions()).first().isEqualTo("Use PostgreSQL.");
    assertThat(c.openItems()).first().isEqualTo("Write the importer.");
    assertThat(c.filesToReload()).contains(previous.filesToReload().get(0));
    assertThat(c.currentState()).contains("Earlier state (previous checkpoint): Schema done.");
  }

  @Test
  void onlyAPreviousCheckpoint_givesItBack() {
    Checkpoint previous =
        new Checkpoint("Goal.", List.of("D."), "S.", List.of(), List.of(), List.of());
    Checkpoint c = summarizer.summarize(List.of(), previous, null);
    assertThat(c.objective()).isEqualTo("Goal.");
    assertThat(c.decisions()).containsExactly("D.");
  }

  @Test
  void instructions_pullMatchingSentencesIntoTheState() {
    Checkpoint c = summarizer.summarize(session(), null, "Focus on the zero-items test.");
    assertThat(c.currentState())
        .contains("Instructions for this checkpoint: Focus on the zero-items test.")
        .contains("\n- The zero-items test still fails.");
  }

  @Test
  void isDeterministic() {
    assertThat(summarizer.summarize(session(), null, "x"))
        .isEqualTo(summarizer.summarize(session(), null, "x"));
  }
}
