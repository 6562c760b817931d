package dev.compactor.core.compaction.text;

import java.util.ArrayList;
import java.util.List;

/**
 * Sentence splitting and the extractive sentence score of the {@code trim} strategy (gptme's
 * weights, see {@code research-notes.md}).
 *
 * <p>{@link #score} adds: position (+2 first, +1.5 last, +1 second and third), +0.5 per key term
 * present (error, fail, success, complete, implement, fix, bug, issue, result, output, todo, fixme,
 * note, warning), length (under 10 characters -1, under 50 +0.3, over 200 -0.2), and once each: a
 * decision +2, a conclusion +1.5, a commitment +1.5, an action result +1, a file path +1, a URL
 * +0.5, an error word +1.5.
 *
 * <p>The phrase lists follow gptme's, widened to common decision ("we'll use", "the solution is"),
 * conclusion ("confirmed that", "turns out"), next-step ("Next steps:", "Action items") and result
 * ("merged", "deployed", "verified") phrasing; polite filler ("Let me take a look at that for you")
 * is not a commitment.
 */
public final class Sentences {
  private Sentences() {}

  private static final String[] KEY_TERMS = {
    "error",
    "fail",
    "success",
    "complete",
    "implement",
    "fix",
    "bug",
    "issue",
    "result",
    "output",
    "todo",
    "fixme",
    "note",
    "warning"
  };

  private static final List<String> DECISION_WORDS =
      List.of(
          "decided",
          "decide to",
          "decision",
          "chose",
          "chosen",
          "choose to",
          "will use",
          "going with",
          "go with",
          "opted",
          "settled on",
          "instead of",
          "rather than",
          "we should use",
          "we'll use",
          "we will use",
          "i'll use",
          "let's use",
          "let's go with",
          "we'll go with",
          "i prefer",
          "the plan is",
          "the solution is",
          "the fix is",
          "the approach is",
          "agreed to",
          "we agreed");
  private static final List<String> CONCLUSION_WORDS =
      List.of(
          "therefore",
          "thus",
          "hence",
          "in conclusion",
          "in summary",
          "to summarize",
          "overall",
          "this means",
          "consequently",
          "which means",
          "the cause",
          "caused by",
          "root cause",
          "explains",
          "confirmed that",
          "this confirms",
          "turns out",
          "the problem is",
          "the problem was",
          "the issue is",
          "the issue was",
          "the answer is",
          "the solution is");

  /** What both a commitment and an open item may say: the next step. */
  private static final List<String> NEXT_STEP_WORDS =
      List.of("next i", "next, i", "next step", "next steps", "action item", "action items");

  private static final List<String> COMMITMENT_WORDS =
      with(
          NEXT_STEP_WORDS,
          "i will",
          "i'll",
          "we will",
          "we'll",
          "follow up on",
          "i am going to",
          "i'm going to",
          "i need to",
          "we need to",
          "must",
          "todo",
          "to do");
  private static final List<String> ACTION_RESULT_WORDS =
      List.of(
          "fixed",
          "implemented",
          "updated",
          "created",
          "added",
          "removed",
          "changed",
          "refactored",
          "passes",
          "passed",
          "succeeded",
          "resolved",
          "completed",
          "works now",
          "now works",
          "green",
          "merged",
          "deployed",
          "released",
          "shipped",
          "confirmed",
          "verified",
          "as a result");
  private static final List<String> ERROR_WORD_WORDS =
      List.of(
          "error",
          "errors",
          "exception",
          "exceptions",
          "traceback",
          "failed",
          "failure",
          "failures",
          "failing",
          "crash",
          "crashed",
          "crashes");
  private static final List<String> OPEN_ITEM_WORDS =
      with(
          NEXT_STEP_WORDS,
          "todo",
          "fixme",
          "still fail",
          "still fails",
          "still failing",
          "not yet",
          "remaining",
          "left to do",
          "pending",
          "need to be",
          "needs to be",
          "i will",
          "we will",
          "i'll",
          "we'll",
          "follow-up",
          "open question",
          "blocked");
  private static final List<String> CONSTRAINT_WORDS =
      List.of(
          "must",
          "must not",
          "should",
          "should not",
          "shouldn't",
          "do not",
          "don't",
          "never",
          "always",
          "only",
          "instead of",
          "rather than",
          "not on",
          "make sure",
          "keep",
          "avoid");

  private static List<String> with(List<String> shared, String... more) {
    List<String> all = new ArrayList<>(shared);
    all.addAll(List.of(more));
    return List.copyOf(all);
  }

  private static final Phrases DECISION = new Phrases(DECISION_WORDS);
  private static final Phrases OPEN_ITEM = new Phrases(OPEN_ITEM_WORDS);
  private static final Phrases CONSTRAINT = new Phrases(CONSTRAINT_WORDS);
  private static final Phrases ACTION_RESULT = new Phrases(ACTION_RESULT_WORDS);

  private static final long DECISION_FLAG = 1L << 32;
  private static final long CONCLUSION_FLAG = 1L << 33;
  private static final long COMMITMENT_FLAG = 1L << 34;
  private static final long ACTION_RESULT_FLAG = 1L << 35;
  private static final long ERROR_WORD_FLAG = 1L << 36;

  /** Everything {@link #score} looks for, found in one pass: key term i has bit i. */
  private static final Phrases SCORED = scored();

  private static Phrases scored() {
    Phrases.Builder b = new Phrases.Builder();
    for (int i = 0; i < KEY_TERMS.length; i++) {
      b.substring(1L << i, KEY_TERMS[i]);
    }
    return b.words(DECISION_FLAG, DECISION_WORDS)
        .words(CONCLUSION_FLAG, CONCLUSION_WORDS)
        .words(COMMITMENT_FLAG, COMMITMENT_WORDS)
        .words(ACTION_RESULT_FLAG, ACTION_RESULT_WORDS)
        .words(ERROR_WORD_FLAG, ERROR_WORD_WORDS)
        .build();
  }

  /**
   * Splits prose into sentences at whitespace after {@code .}, {@code !} or {@code ?}; blank pieces
   * are dropped. Line breaks inside the text count as whitespace: split lines first to keep them.
   */
  public static List<String> split(String text) {
    // The split of "(?<=[.!?])\\s+", by hand: a lookbehind regex costs more than the scoring.
    List<String> out = new ArrayList<>();
    int n = text.length();
    int start = 0;
    int i = 1;
    while (i < n) {
      if (isSpace(text.charAt(i)) && isSentenceEnd(text.charAt(i - 1))) {
        add(out, text, start, i);
        int j = i + 1;
        while (j < n && isSpace(text.charAt(j))) {
          j++;
        }
        start = j;
        i = j + 1;
      } else {
        i++;
      }
    }
    add(out, text, start, n);
    return out;
  }

  private static void add(List<String> out, String text, int from, int to) {
    if (from < to) {
      String t = text.substring(from, to).strip();
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
  }

  /** Regex {@code \\s}: space, tab, line feed, vertical tab, form feed, carriage return. */
  private static boolean isSpace(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
  }

  private static boolean isSentenceEnd(char c) {
    return c == '.' || c == '!' || c == '?';
  }

  /**
   * The extractive score of a sentence.
   *
   * @param sentence the sentence
   * @param index its position among the sentences of the message, from 0
   * @param count how many sentences the message has
   */
  public static double score(String sentence, int index, int count) {
    double score = 0;
    if (index == 0) {
      score += 2.0;
    } else if (index == count - 1) {
      score += 1.5;
    } else if (index <= 2) {
      score += 1.0;
    }
    long found = SCORED.scan(sentence);
    score += 0.5 * Long.bitCount(found & ((1L << KEY_TERMS.length) - 1));
    int len = sentence.length();
    if (len < 10) {
      score -= 1.0;
    } else if (len < 50) {
      score += 0.3;
    } else if (len > 200) {
      score -= 0.2;
    }
    if ((found & DECISION_FLAG) != 0) {
      score += 2.0;
    }
    if ((found & CONCLUSION_FLAG) != 0) {
      score += 1.5;
    }
    if ((found & COMMITMENT_FLAG) != 0) {
      score += 1.5;
    }
    if ((found & ACTION_RESULT_FLAG) != 0) {
      score += 1.0;
    }
    if (TextFeatures.containsFilePath(sentence)) {
      score += 1.0;
    }
    if (TextFeatures.containsUrl(sentence)) {
      score += 0.5;
    }
    if ((found & ERROR_WORD_FLAG) != 0) {
      score += 1.5;
    }
    return score;
  }

  /** A decision: "decided", "will use", "instead of", "chose", "going with", … */
  public static boolean isDecision(String sentence) {
    return DECISION.in(sentence);
  }

  /** Something still to do: TODO, "next step", "still fails", "not yet", "I will", … */
  public static boolean isOpenItem(String sentence) {
    return OPEN_ITEM.in(sentence);
  }

  /** A constraint as users state them: "must", "should", "never", "instead of", "only", … */
  public static boolean isConstraint(String sentence) {
    return CONSTRAINT.in(sentence);
  }

  /** An outcome: "fixed", "passed", "implemented", "as a result", … */
  public static boolean isActionResult(String sentence) {
    return ACTION_RESULT.in(sentence);
  }
}
