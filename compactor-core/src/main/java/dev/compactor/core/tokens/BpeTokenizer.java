package dev.compactor.core.tokens;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the tokens of a text with a tiktoken BPE encoding: the text is split by the encoding's
 * pattern, and each piece that is not a token itself is merged byte pair by byte pair, lowest rank
 * first and leftmost first among equal ranks, exactly as tiktoken's {@code byte_pair_merge} does
 * (the same counts as jtokkit's {@code countTokensOrdinary}: special tokens are ordinary text).
 * Pieces of up to {@value #SMALL} bytes merge in a scan of the pair ranks; longer ones (a run of
 * base64, a long line without spaces) through a heap, so a piece of n bytes costs O(n log n).
 */
final class BpeTokenizer implements TextTokenizer {
  /** tiktoken's {@code o200k_base} split pattern (GPT-4o, GPT-4.1, o-series). */
  static final String O200K_PATTERN =
      String.join(
          "|",
          "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+"
              + "(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
          "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*"
              + "(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
          "\\p{N}{1,3}",
          " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
          "\\s*[\\r\\n]+",
          "\\s+(?!\\S)",
          "\\s+");

  static final int SMALL = 128;
  private static final int NONE = Integer.MAX_VALUE;

  private final Pattern pattern;
  private final BpeRanks ranks;

  private final boolean splitter;

  /**
   * A tokenizer that splits with {@code pattern}.
   *
   * @param pattern the encoding's split pattern
   */
  BpeTokenizer(Pattern pattern, BpeRanks ranks) {
    this(pattern, ranks, false);
  }

  private BpeTokenizer(Pattern pattern, BpeRanks ranks, boolean splitter) {
    this.pattern = pattern;
    this.ranks = ranks;
    this.splitter = splitter;
  }

  /** The encodings counted here, with where their ranks come from. */
  enum Encoding {
    O200K_BASE("o200k_base", O200K_PATTERN);

    private final String encodingName;
    private final String pattern;

    Encoding(String encodingName, String pattern) {
      this.encodingName = encodingName;
      this.pattern = pattern;
    }

    /** jtokkit's rank file on the class path, the source of the ranks. */
    String tiktokenResource() {
      return "/com/knuddels/jtokkit/" + encodingName + ".tiktoken";
    }

    /** The file name of the compact form made at build time. */
    String compactFileName() {
      return encodingName + ".bpe";
    }

    String compactResource() {
      return "/" + BpeTokenizer.class.getPackageName().replace('.', '/') + "/" + compactFileName();
    }
  }

  /** The tokenizer of {@code encoding}, its ranks from the compact form or the rank file. */
  static BpeTokenizer of(Encoding encoding) {
    return new BpeTokenizer(
        null, BpeRanks.load(encoding.compactResource(), encoding.tiktokenResource()), true);
  }

  /** The tokenizer of {@code encoding} splitting with its pattern (to check the splitter). */
  static BpeTokenizer withPattern(Encoding encoding) {
    return new BpeTokenizer(
        Pattern.compile(encoding.pattern, Pattern.UNICODE_CHARACTER_CLASS),
        BpeRanks.load(encoding.compactResource(), encoding.tiktokenResource()));
  }

  @Override
  public int count(String text) {
    if (text.isEmpty()) {
      return 0;
    }
    boolean fast = splitter;
    Matcher m = fast ? null : pattern.matcher(text);
    byte[] buf = new byte[64];
    int[] scratch = new int[2 * (SMALL + 1)]; // mergeSmall's arrays, reused for every piece
    int tokens = 0;
    int at = 0;
    int n = text.length();
    while (fast ? at < n : m.find()) {
      int s = fast ? at : m.start();
      int e = fast ? O200kSplitter.end(text, at) : m.end();
      at = e;
      int len = e - s;
      byte[] piece;
      boolean ascii = true;
      if (len > buf.length) {
        buf = new byte[Math.max(len, buf.length * 2)];
      }
      for (int i = 0; i < len; i++) {
        char c = text.charAt(s + i);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        buf[i] = (byte) c;
      }
      if (ascii) {
        piece = buf;
      } else {
        piece = text.substring(s, e).getBytes(StandardCharsets.UTF_8);
        len = piece.length;
      }
      tokens += countPiece(piece, len, scratch);
    }
    return tokens;
  }

  /**
   * The tokens of {@code b[0..len)}, one piece of the split.
   *
   * @param scratch at least {@code 2 * (SMALL + 1)} ints the merge may overwrite
   */
  private int countPiece(byte[] b, int len, int[] scratch) {
    if (len <= 1 || ranks.rankOf(b, 0, len) >= 0) {
      return len == 0 ? 0 : 1;
    }
    return len <= SMALL ? mergeSmall(b, len, scratch) : mergeLarge(b, len);
  }

  private int rank(byte[] b, int from, int to) {
    int r = ranks.rankOf(b, from, to);
    return r < 0 ? NONE : r;
  }

  /**
   * tiktoken's merge loop: part i starts at {@code s[i]}, and {@code s[P + i]} is the rank of parts
   * i and i+1 (P = {@code SMALL + 1}); {@code s} is the caller's scratch, so a piece allocates
   * nothing.
   */
  private int mergeSmall(byte[] b, int len, int[] s) {
    final int p = SMALL + 1;
    int n = len + 1;
    for (int i = 0; i < n; i++) {
      s[i] = i;
      s[p + i] = i + 2 <= len ? rank(b, i, i + 2) : NONE;
    }
    while (true) {
      int min = NONE;
      int at = -1;
      for (int i = 0; i < n - 1; i++) {
        if (s[p + i] < min) {
          min = s[p + i];
          at = i;
        }
      }
      if (at < 0) {
        break;
      }
      // Parts at and at+1 become one: its pair with the next part ends where part at+3 starts.
      s[p + at] = at + 3 < n ? rank(b, s[at], s[at + 3]) : NONE;
      if (at > 0) {
        s[p + at - 1] = at + 2 < n ? rank(b, s[at - 1], s[at + 2]) : NONE;
      }
      System.arraycopy(s, at + 2, s, at + 1, n - at - 2);
      System.arraycopy(s, p + at + 2, s, p + at + 1, n - at - 2);
      n--;
    }
    return n - 1;
  }

  /**
   * The same merges over a linked list of parts and a min-heap of (rank, start) keys, so that the
   * lowest rank is found in O(log n) and ties still go to the leftmost pair. A heap entry is
   * current when its part is alive and its pair still has that rank.
   */
  private int mergeLarge(byte[] b, int len) {
    int[] next = new int[len + 1];
    int[] prev = new int[len + 1];
    int[] pair = new int[len + 1];
    boolean[] dead = new boolean[len + 1];
    long[] heap = new long[len * 2 + 8];
    int size = 0;
    for (int i = 0; i <= len; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
      pair[i] = i + 2 <= len ? rank(b, i, i + 2) : NONE;
      if (pair[i] != NONE) {
        size = push(heap, size, key(pair[i], i));
      }
    }
    int parts = len;
    while (size > 0) {
      long top = heap[0];
      size = pop(heap, size);
      int k = (int) top;
      int r = (int) (top >>> 32);
      if (dead[k] || pair[k] != r) {
        continue;
      }
      int j = next[k];
      int after = next[j];
      next[k] = after;
      prev[after] = k;
      dead[j] = true;
      parts--;
      pair[k] = after < len ? rank(b, k, next[after]) : NONE;
      if (pair[k] != NONE) {
        if (size == heap.length) {
          heap = Arrays.copyOf(heap, heap.length * 2);
        }
        size = push(heap, size, key(pair[k], k));
      }
      int p = prev[k];
      if (p >= 0) {
        pair[p] = rank(b, p, after);
        if (pair[p] != NONE) {
          if (size == heap.length) {
            heap = Arrays.copyOf(heap, heap.length * 2);
          }
          size = push(heap, size, key(pair[p], p));
        }
      }
    }
    return parts;
  }

  private static long key(int rank, int start) {
    return ((long) rank << 32) | start;
  }

  private static int push(long[] heap, int size, long v) {
    int i = size;
    heap[i] = v;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (heap[parent] <= v) {
        break;
      }
      heap[i] = heap[parent];
      heap[parent] = v;
      i = parent;
    }
    return size + 1;
  }

  private static int pop(long[] heap, int size) {
    int last = size - 1;
    long v = heap[last];
    heap[0] = v;
    int i = 0;
    while (true) {
      int l = 2 * i + 1;
      if (l >= last) {
        break;
      }
      int c = l + 1 < last && heap[l + 1] < heap[l] ? l + 1 : l;
      if (heap[c] >= v) {
        break;
      }
      heap[i] = heap[c];
      heap[c] = v;
      i = c;
    }
    return last;
  }
}
