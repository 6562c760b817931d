package dev.compactor.core.compaction.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Parity scenario 19: the sentence scoring weights. */
class SentencesTest {

  private static final String PLAIN = "The weather report mentions clouds over the hills today";

  @Test
  void split_atSentenceEndsFollowedByWhitespace() {
    assertThat(Sentences.split("One. Two! Three? v1.2 stays.  Four"))
        .containsExactly("One.", "Two!", "Three?", "v1.2 stays.", "Four");
  }

  @Test
  void split_isTheSplitOfTheLookbehindRegex_onRandomText() {
    java.util.regex.Pattern regex = java.util.regex.Pattern.compile("(?<=[.!?])\\s+");
    char[] alphabet = {
      'a', 'b', '.', '!', '?', ' ', ' ', '\t', '\n', '\r', '\u000B', '\f', 'é', '\u00A0'
    };
    java.util.Random random = new java.util.Random(7);
    for (int k = 0; k < 20_000; k++) {
      StringBuilder sb = new StringBuilder();
      int len = random.nextInt(30);
      for (int i = 0; i < len; i++) {
        sb.append(alphabet[random.nextInt(alphabet.length)]);
      }
      String text = sb.toString();
      java.util.List<String> expected = new java.util.ArrayList<>();
      for (String piece : regex.split(text)) {
        if (!piece.strip().isEmpty()) {
          expected.add(piece.strip());
        }
      }
      assertThat(Sentences.split(text)).as("split of \"%s\"", text).isEqualTo(expected);
    }
  }

  @Test
  void score_position_firstTwo_lastOneAndAHalf_secondAndThirdOne() {
    double base = Sentences.score(PLAIN, 5, 10);
    assertThat(Sentences.score(PLAIN, 0, 10) - base).isCloseTo(2.0, within(1e-9));
    assertThat(Sentences.score(PLAIN, 9, 10) - base).isCloseTo(1.5, within(1e-9));
    assertThat(Sentences.score(PLAIN, 1, 10) - base).isCloseTo(1.0, within(1e-9));
    assertThat(Sentences.score(PLAIN, 2, 10) - base).isCloseTo(1.0, within(1e-9));
    assertThat(Sentences.score(PLAIN, 3, 10) - base).isCloseTo(0.0, within(1e-9));
  }

  @Test
  void score_length_shortMinusOne_mediumPlusPointThree_longMinusPointTwo() {
    assertThat(Sentences.score("Hi there.", 5, 10)).isCloseTo(-1.0, within(1e-9));
    assertThat(Sentences.score("The clouds drift slowly over hills.", 5, 10))
        .isCloseTo(0.3, within(1e-9));
    assertThat(Sentences.score(PLAIN, 5, 10)).isCloseTo(0.0, within(1e-9));
    assertThat(Sentences.score("cloud ".repeat(40).strip() + ".", 5, 10))
        .isCloseTo(-0.2, within(1e-9));
  }

  /**
   * The bonus of a sentence of the same length as {@link #PLAIN}: decision +2, conclusion and
   * commitment +1.5, action result +1, file path +1, URL +0.5, error word +1.5, key term +0.5 each
   * ({@code =}); common phrasings of a decision, conclusion, next step or result earn at least
   * theirs ({@code >=}).
   */
  @ParameterizedTest(name = "{1} {2}: {0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "We decided on clouds over the hills for the weather map|=|2.0",
        "Therefore the clouds move over the hills in the weather|=|1.5",
        "Next I will draw the clouds over the hills in the map|=|1.5",
        "The clouds were updated over the hills for the weather|=|1.0",
        "The clouds over the hills are drawn in src/sky/Clouds.java|=|1.0",
        "The clouds over the hills are drawn at https://sky.example|=|0.5",
        // "exception" is an error word (+1.5); it contains no key term
        "An exception happened with clouds over the hills today|=|1.5",
        // "note" and "output" are key terms and nothing else
        "A note on the output of clouds over the hills in weather|=|1.0",
        "We'll use the clouds over the hills for the weather map|>=|2.0",
        "The solution is clouds over the hills in the weather map|>=|2.0",
        "We confirmed that clouds drift over the hills today|>=|1.5",
        "Next steps: draw the clouds over the hills in the map|>=|1.5",
        "Action items for the clouds over the hills in the map|>=|1.5",
        "Merged the clouds over the hills into the weather map|>=|1.0",
      })
  void score_addsTheBonusOfItsCue(String sentence, String relation, double bonus) {
    double base = Sentences.score(PLAIN, 5, 10);
    double score = Sentences.score(sentence, 5, 10);
    switch (relation) {
      case "=" -> assertThat(score).isCloseTo(base + bonus, within(1e-9));
      case ">=" -> assertThat(score).isGreaterThanOrEqualTo(base + bonus);
      default -> throw new IllegalArgumentException("relation " + relation + " in the test data");
    }
  }

  @Test
  void score_politeFiller_isNotACommitment() {
    String filler = "Let me take a look at that for you";
    assertThat(Sentences.score(filler, 5, 10)).isCloseTo(0.3, within(1e-9)); // length only
    assertThat(Sentences.isOpenItem(filler)).isFalse();
    assertThat(Sentences.isDecision(filler)).isFalse();
  }

  @Test
  void decisionOpenItemAndConstraint_detectors() {
    assertThat(
            List.of(
                "I chose BigDecimal instead of double.", "We'll use BigDecimal for every total."))
        .allMatch(Sentences::isDecision);
    assertThat(Sentences.isDecision("The build ran.")).isFalse();
    assertThat(
            List.of(
                "TODO: add the migration.",
                "The integration test still fails.",
                "Action items: write the migration test."))
        .allMatch(Sentences::isOpenItem);
    assertThat(Sentences.isOpenItem("Everything is done.")).isFalse();
    assertThat(Sentences.isConstraint("Never push to main.")).isTrue();
    assertThat(Sentences.isActionResult("Merged the pull request.")).isTrue();
  }
}
