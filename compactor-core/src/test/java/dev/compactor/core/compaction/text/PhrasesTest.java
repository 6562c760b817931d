package dev.compactor.core.compaction.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PhrasesTest {
  private static final List<String> WORDS =
      List.of("i will", "i'll", "next, i", "root cause", "instead of", "to do", "todo", "go with");

  /** The straightforward definition: indexOf of every phrase in the lower-cased text. */
  private static boolean reference(List<String> phrases, boolean whole, String text) {
    String lower = text.toLowerCase(Locale.ROOT);
    for (String p : phrases) {
      for (int i = lower.indexOf(p); i >= 0; i = lower.indexOf(p, i + 1)) {
        int end = i + p.length();
        if (!whole
            || ((i == 0 || !wordChar(lower.charAt(i - 1)))
                && (end == lower.length() || !wordChar(lower.charAt(end))))) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean wordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '\'';
  }

  @Test
  void wholeWords_ignoringCase_notInsideLongerWords() {
    Phrases p = new Phrases(WORDS);
    assertThat(p.in("Then I WILL run it")).isTrue();
    assertThat(p.in("I'll do it")).isTrue();
    assertThat(p.in("Next, I ran it")).isTrue();
    assertThat(p.in("the ROOT CAUSE was")).isTrue();
    assertThat(p.in("todos are open")).isFalse(); // "todo" inside a longer word
    assertThat(p.in("go without")).isFalse();
    assertThat(p.in("kit will")).isFalse(); // "i will" would need a word start before "i"
    assertThat(p.in("")).isFalse();
  }

  @Test
  void substrings_matchInsideWords_andFlagsCombine() {
    Phrases p =
        new Phrases.Builder()
            .substring(1, "fix")
            .substring(2, "error")
            .words(4, List.of("as a result"))
            .build();
    assertThat(p.scan("prefixed errors")).isEqualTo(3);
    assertThat(p.scan("As a result: FIXED")).isEqualTo(5);
    assertThat(p.scan("as a resultant")).isZero();
  }

  @Test
  void overlappingPhrases_areAllFound() {
    // "she" inside "ushers" and "hers": the failure links of the automaton
    Phrases p =
        new Phrases.Builder()
            .substring(1, "he")
            .substring(2, "she")
            .substring(4, "his")
            .substring(8, "hers")
            .build();
    assertThat(p.scan("ushers")).isEqualTo(1 | 2 | 8);
    assertThat(p.scan("this")).isEqualTo(4);
  }

  @Test
  void agreesWithTheReferenceOnRandomText() {
    List<String> vocabulary = new ArrayList<>(WORDS);
    vocabulary.addAll(
        List.of(
            "i", "will", "willing", "next", ",", "I", "todos", "TODO", "cause", "root", "go",
            "with", "without", "to", "do", "instead", "of", "ill", "'", "é", "日本", "_x", "Wİll",
            "ı", "\t", ".", "x1"));
    long seed = 42;
    Random rnd = new Random(seed);
    Phrases whole = new Phrases(WORDS);
    Phrases.Builder b = new Phrases.Builder();
    WORDS.forEach(w -> b.substring(1, w));
    Phrases anywhere = b.build();
    for (int t = 0; t < 20_000; t++) {
      StringBuilder sb = new StringBuilder();
      int n = rnd.nextInt(8);
      for (int k = 0; k < n; k++) {
        String w = vocabulary.get(rnd.nextInt(vocabulary.size()));
        if (rnd.nextInt(4) == 0) {
          w = w.toUpperCase(Locale.ROOT);
        }
        sb.append(w);
        if (rnd.nextInt(3) > 0) {
          sb.append(' ');
        }
      }
      String text = sb.toString();
      assertThat(whole.in(text))
          .as("seed %d, whole words in \"%s\"", seed, text)
          .isEqualTo(reference(WORDS, true, text));
      assertThat(anywhere.in(text))
          .as("seed %d, substrings in \"%s\"", seed, text)
          .isEqualTo(reference(WORDS, false, text));
    }
  }

  @Test
  void phrasesOutsideTheAlphabet_areRejected() {
    assertThatThrownBy(() -> new Phrases(List.of("Upper")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Upper");
    assertThatThrownBy(() -> new Phrases(List.of("naïve")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Phrases(List.of(""))).isInstanceOf(IllegalArgumentException.class);
  }
}
