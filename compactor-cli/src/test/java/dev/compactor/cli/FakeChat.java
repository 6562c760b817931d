package dev.compactor.cli;

import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The provider side of the chat tests: a {@link FakeModelServer} that answers "question N" with
 * "answer N: …" (about 250 tokens of prose, so a few turns fill a small budget) and a summary
 * request (the checkpoint prompt of {@link ModelSummarizer}) with a checkpoint. A question that
 * says "slowly" is answered after 3 s.
 */
final class FakeChat {
  private FakeChat() {}

  static final String CHECKPOINT =
      "## Objective\nAnswer the numbered questions.\n\n## Key Decisions\n- Keep answers short."
          + "\n\n## Current State\nThe questions so far are answered.\n\n## Open Items\n- The next"
          + " question.\n\n## Context Files\n- `notes.md` — the answers";

  private static final Pattern QUESTION = Pattern.compile("question (\\d+)");

  private static final String[] WORDS = {
    "parser", "budget", "window", "token", "summary", "checkpoint", "request", "provider",
    "message", "history", "context", "answer", "result", "branch", "release", "module"
  };

  /** A server with the chat's handler. */
  static FakeModelServer start() {
    return FakeModelServer.builder().replyWith(FakeChat::reply).start();
  }

  /** Whether {@code r} is a summary request. */
  static boolean isSummary(RecordedRequest r) {
    return r.system().startsWith(ModelSummarizer.PROMPT.substring(0, 40));
  }

  /** The chat requests (not summaries). */
  static List<RecordedRequest> chats(FakeModelServer server) {
    return server.requests().stream().filter(r -> !r.rejected() && !isSummary(r)).toList();
  }

  /** The summary requests. */
  static List<RecordedRequest> summaries(FakeModelServer server) {
    return server.requests().stream().filter(r -> !r.rejected() && isSummary(r)).toList();
  }

  static Reply reply(RecordedRequest r) {
    if (isSummary(r)) {
      return Reply.text(CHECKPOINT);
    }
    String last = r.lastUserText() == null ? "" : r.lastUserText();
    Matcher m = QUESTION.matcher(last);
    int n = m.find() ? Integer.parseInt(m.group(1)) : 0;
    if (last.contains("slowly")) {
      return Reply.text(answer(n)).delay(java.time.Duration.ofSeconds(3));
    }
    return Reply.text(answer(n));
  }

  /** "answer N: " and about 1,100 characters of sentences that differ from answer to answer. */
  static String answer(int n) {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "answer %d: ", n));
    int i = 0;
    while (s.length() < 1100) {
      String a = WORDS[(n * 7 + i) % WORDS.length];
      String b = WORDS[(n * 3 + i * 5 + 1) % WORDS.length];
      s.append(
          String.format(
              Locale.ROOT,
              "Step %d of answer %d checks the %s against the %s and notes what changed. ",
              i + 1,
              n,
              a,
              b));
      i++;
    }
    return s.toString().strip();
  }
}
