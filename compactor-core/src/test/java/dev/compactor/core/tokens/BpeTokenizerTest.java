package dev.compactor.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** Our o200k_base BPE counts exactly what jtokkit counts, from the compact ranks or the file. */
class BpeTokenizerTest {
  private static final Encoding JTOKKIT =
      Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
  private static final BpeTokenizer OURS = BpeTokenizer.of(BpeTokenizer.Encoding.O200K_BASE);

  private static void assertSameCount(String text, String what) {
    assertThat(OURS.count(text)).as(what).isEqualTo(JTOKKIT.countTokensOrdinary(text));
  }

  @Test
  void theExampleSession_countsAsJtokkitDoes_lineByLine() throws IOException {
    Path f = Path.of("../examples/agent-session.jsonl");
    assertThat(f).exists();
    int line = 0;
    for (String l : Files.readAllLines(f)) {
      assertSameCount(l, "examples/agent-session.jsonl line " + ++line);
    }
    String whole = Files.readString(f);
    assertSameCount(whole, "the whole file");
  }

  @Test
  void longPieces_mergeThroughTheHeap_asJtokkitDoes() {
    Random r = new Random(7);
    StringBuilder letters = new StringBuilder();
    StringBuilder base64 = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      letters.append((char) ('a' + r.nextInt(26)));
      base64.append(
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charAt(r.nextInt(64)));
    }
    assertSameCount(letters.toString(), "5,000 random letters");
    assertSameCount(base64.toString(), "5,000 base64 characters");
    // Equal ranks everywhere: ties go to the leftmost pair.
    for (int n :
        new int[] {BpeTokenizer.SMALL - 1, BpeTokenizer.SMALL, BpeTokenizer.SMALL + 1, 3001}) {
      assertSameCount("a".repeat(n), n + " a");
      assertSameCount("ab".repeat(n), n + " ab");
      assertSameCount(" ".repeat(n) + "x", n + " spaces");
      assertSameCount("日本".repeat(n), n + " CJK pairs");
      assertSameCount("=".repeat(n), n + " equals signs");
    }
  }

  @Test
  void randomUnicode_surrogatesAndMarks_countAsJtokkitDoes() {
    Random r = new Random(42);
    String alphabet = "aZé 中\n\t'sS1٣😀\u0301-/_\r.,'ll";
    int[] cps = alphabet.codePoints().toArray();
    for (int i = 0; i < 3000; i++) {
      String text =
          randomText(
              r,
              cps,
              200,
              20,
              sb -> sb.append((char) (0xD800 + r.nextInt(0x800))), // a lone surrogate
              sb -> sb.append((char) r.nextInt(0xD800)));
      assertSameCount(text, "random text " + i + " (seed 42)");
    }
  }

  @Test
  void corpusTranscripts_countAsJtokkitDoes_whenTheCorpusIsPresent() throws IOException {
    Path corpus = Path.of("../../shared/corpus");
    if (!Files.isDirectory(corpus)) {
      // As testkit's SharedCorpus does (core's tests cannot use the testkit): skip on a clone
      // without the corpus, fail in CI, where it must be present.
      String what = "no corpus at " + corpus.toAbsolutePath();
      if ("true".equalsIgnoreCase(String.valueOf(System.getenv("CI")).strip())) {
        org.junit.jupiter.api.Assertions.fail(what + "; CI=true, so the corpus must be present");
      }
      System.out.println("SKIPPED BpeTokenizerTest corpus transcripts: " + what);
      org.junit.jupiter.api.Assumptions.abort(what);
    }
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.walk(corpus, 2)) {
      s.filter(p -> p.toString().endsWith(".gz")).sorted().forEach(files::add);
    }
    // One file of each kind, so the test stays quick: every format and language it holds.
    List<String> seen = new ArrayList<>();
    for (Path p : files) {
      String kind = corpus.relativize(p).getName(0).toString();
      if (seen.contains(kind)) {
        continue;
      }
      seen.add(kind);
      String text;
      try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      int line = 0;
      for (String l : text.split("\n")) {
        assertSameCount(l, p + " line " + ++line);
      }
    }
    assertThat(seen).isNotEmpty();
  }

  @Test
  void theCompactForm_isPackaged_andHoldsTheSameRanksAsTheRankFile() {
    BpeTokenizer.Encoding e = BpeTokenizer.Encoding.O200K_BASE;
    assertThat(BpeRanks.class.getResource(e.compactResource()))
        .as("made by the build (BpeRanksCompiler)")
        .isNotNull();
    BpeRanks parsed = BpeRanks.parse(BpeRanks.readRequired(e.tiktokenResource()), "rank file");
    byte[] packaged = BpeRanks.readRequired(e.compactResource());
    assertThat(packaged).isEqualTo(parsed.toCompact());
    BpeRanks compact = BpeRanks.fromCompact(packaged, "compact");
    assertThat(compact.size()).isEqualTo(parsed.size()).isEqualTo(199_998);
    byte[] hello = "Hello".getBytes(StandardCharsets.UTF_8);
    assertThat(compact.rankOf(hello, 0, hello.length))
        .isEqualTo(parsed.rankOf(hello, 0, hello.length))
        .isNotNegative();
    assertThat(compact.rankOf(hello, 0, 0)).isEqualTo(-1);
  }

  @Test
  void withoutTheCompactForm_theRankFileIsParsed() {
    BpeTokenizer.Encoding e = BpeTokenizer.Encoding.O200K_BASE;
    BpeRanks ranks = BpeRanks.load("/no/such/ranks.bpe", e.tiktokenResource());
    BpeTokenizer t =
        new BpeTokenizer(
            java.util.regex.Pattern.compile(
                BpeTokenizer.O200K_PATTERN, java.util.regex.Pattern.UNICODE_CHARACTER_CLASS),
            ranks);
    String text = "def f(x):\n    return x ** 2  # squares, 日本語 🎉\n";
    assertThat(t.count(text)).isEqualTo(JTOKKIT.countTokensOrdinary(text));
  }

  @Test
  void aBrokenRankFile_orCompactForm_isRefusedNamingIt() {
    assertThatThrownBy(
            () ->
                BpeRanks.parse(
                    "SGVsbG8= 0\nnot-base64! 1\n".getBytes(StandardCharsets.UTF_8), "x.tiktoken"))
        .hasMessageContaining("x.tiktoken")
        .hasMessageContaining("line 2");
    assertThatThrownBy(() -> BpeRanks.fromCompact(new byte[20], "x.bpe"))
        .hasMessageContaining("x.bpe")
        .hasMessageContaining("format version");
    byte[] good =
        BpeRanks.parse("SGVsbG8= 0\nIQ== 1\n".getBytes(StandardCharsets.UTF_8), "t").toCompact();
    assertThatThrownBy(
            () -> BpeRanks.fromCompact(java.util.Arrays.copyOf(good, good.length - 1), "y.bpe"))
        .hasMessageContaining("y.bpe")
        .hasMessageContaining("truncated");
  }

  /** The splitter's pieces, checked against {@code Matcher.find} of the pattern piece by piece. */
  private static void assertSamePieces(String text, String what) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                BpeTokenizer.O200K_PATTERN, java.util.regex.Pattern.UNICODE_CHARACTER_CLASS)
            .matcher(text);
    int at = 0;
    while (m.find()) {
      assertThat(m.start()).as("%s: a piece starts at %d", what, at).isEqualTo(at);
      int end = O200kSplitter.end(text, at);
      assertThat(end)
          .as("%s: the piece at %d, %s by the pattern", what, at, text.substring(at, m.end()))
          .isEqualTo(m.end());
      at = end;
    }
    assertThat(at).as(what + ": the pieces cover the text").isEqualTo(text.length());
  }

  @Test
  void theSplitter_cutsThePiecesThePatternMatches() throws IOException {
    assertSamePieces(Files.readString(Path.of("../examples/agent-session.jsonl")), "the example");
    Random r = new Random(3);
    // Letters of every case class, marks, contractions (ſ folds to s), digits of other scripts,
    // every kind of white space, line breaks, slashes, emoji and lone surrogates.
    String alphabet =
        "aZé 中\n\t'sS1٣😀\u0301\u0345-/_\r.,'ll'LL'Re\u017f\u01c5ʰ\u2028\u0085\u00a0"
            + " \u000b\u200d\ud800";
    int[] cps = alphabet.codePoints().toArray();
    for (int i = 0; i < 20_000; i++) {
      String text =
          randomText(
              r,
              cps,
              40,
              30,
              sb -> sb.append((char) r.nextInt(0x10000)),
              sb -> sb.appendCodePoint(0x10000 + r.nextInt(0x20000)));
      assertSamePieces(text, "random text " + i + " (seed 3)");
    }
  }

  /**
   * Random text of fewer than {@code maxLength} draws: one in {@code odds} is written by {@code
   * rare0}, one by {@code rare1}, the others are code points of {@code alphabet}.
   */
  private static String randomText(
      Random r,
      int[] alphabet,
      int maxLength,
      int odds,
      Consumer<StringBuilder> rare0,
      Consumer<StringBuilder> rare1) {
    StringBuilder sb = new StringBuilder();
    int n = r.nextInt(maxLength);
    for (int k = 0; k < n; k++) {
      int pick = r.nextInt(odds);
      if (pick == 0) {
        rare0.accept(sb);
      } else if (pick == 1) {
        rare1.accept(sb);
      } else {
        sb.appendCodePoint(alphabet[r.nextInt(alphabet.length)]);
      }
    }
    return sb.toString();
  }

  /** The pieces of {@code text} by the pattern itself, as [start, end) pairs from {@code shift}. */
  private static List<List<Integer>> patternPieces(String text, int shift) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                BpeTokenizer.O200K_PATTERN, java.util.regex.Pattern.UNICODE_CHARACTER_CLASS)
            .matcher(text);
    List<List<Integer>> out = new ArrayList<>();
    while (m.find()) {
      out.add(List.of(shift + m.start(), shift + m.end()));
    }
    return out;
  }

  @Test
  void aCleanLineBreak_splitsTheTextIntoPartsWithThePiecesOfTheWhole() {
    long seed = 11;
    Random r = new Random(seed);
    // Lines that start with what may continue the piece of the line feed before them (line breaks,
    // slashes, white space of every kind up to another break) and with what may not.
    String[] starts = {
      "", "\n", "\r\n", "/", "//", " ", "  ", "\t", " \n", "\t\r", "\u00a0", "\u2028", "\u0085",
      "\u00a0\n", "\u2028x", ".", "-/", "'s", "'", "a", "Z", "1", "é", "😀", "\u0301", "\ud800"
    };
    String[] bodies = {
      "word",
      "Word's",
      "x.",
      "a/",
      "end /",
      "12345",
      "  spaced  ",
      " ",
      ".",
      "/usr/lib/x.so",
      "日本",
      "'ll",
      "a\u0301",
      "😀😀",
      "\t",
      "x\r",
      "{\"k\": [1, 2]}",
      "",
      "file_0.txt rho",
      "/srv/x 12",
      "\u0301",
      "x.\r",
      "a /",
      "it's"
    };
    int clean = 0;
    int unclean = 0;
    for (int i = 0; i < 6000; i++) {
      StringBuilder sb = new StringBuilder();
      int lines = 1 + r.nextInt(6);
      for (int l = 0; l < lines; l++) {
        sb.append(starts[r.nextInt(starts.length)]).append(bodies[r.nextInt(bodies.length)]);
        if (l < lines - 1 || r.nextBoolean()) {
          sb.append('\n');
        }
      }
      String text = sb.toString();
      List<List<Integer>> whole = patternPieces(text, 0);
      for (int b = text.indexOf('\n') + 1; b > 0; b = text.indexOf('\n', b) + 1) {
        if (!O200kSplitter.breaksCleanlyAt(text, b)) {
          unclean++;
          continue;
        }
        clean++;
        List<List<Integer>> parts = new ArrayList<>(patternPieces(text.substring(0, b), 0));
        parts.addAll(patternPieces(text.substring(b), b));
        assertThat(parts)
            .as("seed %d text %d, clean break at %d: %s", seed, i, b, text.replace("\n", "\\n"))
            .isEqualTo(whole);
        assertThat(OURS.count(text.substring(0, b)) + OURS.count(text.substring(b)))
            .isEqualTo(JTOKKIT.countTokensOrdinary(text));
      }
    }
    assertThat(clean).as("clean breaks checked").isGreaterThan(3000);
    assertThat(unclean).as("unclean breaks seen").isGreaterThan(1000);
  }

  @Test
  void aLineBreakBeforeABlankLineOrASlash_isNotClean_forThePartsCountOtherwise() {
    // "\n\n" is one piece, and one token, where the parts have one each.
    assertThat(O200kSplitter.breaksCleanlyAt("a\n\nb", 2)).isFalse();
    assertThat(OURS.count("a\n") + OURS.count("\nb")).isNotEqualTo(OURS.count("a\n\nb"));
    assertThat(O200kSplitter.breaksCleanlyAt("a\n \t\nb", 2)).isFalse();
    // After punctuation the piece takes the line breaks and slashes that follow ...
    assertThat(O200kSplitter.breaksCleanlyAt("x.\n/usr", 3)).isFalse();
    assertThat(patternPieces("x.\n/usr", 0)).contains(List.of(1, 4));
    assertThat(O200kSplitter.breaksCleanlyAt("x/\r\n/usr", 4)).isFalse();
    // ... not after a word, a number or white space, where the line feed is white space.
    assertThat(O200kSplitter.breaksCleanlyAt("x\n/usr", 2)).isTrue();
    assertThat(O200kSplitter.breaksCleanlyAt("x 1\r\n/usr", 5)).isTrue();
    assertThat(O200kSplitter.breaksCleanlyAt("x \n/usr", 3)).isTrue();
    assertThat(O200kSplitter.breaksCleanlyAt("\n/usr", 1)).isTrue();
    // Anything else ends the piece at the line feed.
    assertThat(O200kSplitter.breaksCleanlyAt("x.\n  usr", 3)).isTrue();
    assertThat(O200kSplitter.breaksCleanlyAt("x.\n", 3)).isTrue();
    assertThat(O200kSplitter.breaksCleanlyAt("x.\n \t", 3)).isTrue();
  }
}
