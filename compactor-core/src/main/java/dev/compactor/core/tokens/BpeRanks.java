package dev.compactor.core.tokens;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The mergeable ranks of a tiktoken BPE encoding in flat arrays: every token's bytes in one pool,
 * and an open-addressing hash table from a byte range to its rank. Built straight from the {@code
 * .tiktoken} rank file (one {@code base64-token rank} per line) without a map entry, boxed integer
 * or string per token, so loading {@code o200k_base} (200,000 tokens) takes a few tens of
 * milliseconds instead of the few hundred a map-based load costs in a fresh JVM. Immutable and
 * thread-safe once built.
 */
final class BpeRanks {
  private static final int[] BASE64 = new int[128];

  static {
    Arrays.fill(BASE64, -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      BASE64[alphabet.charAt(i)] = i;
    }
  }

  private final byte[] pool;
  private final int[] start; // token i's bytes: pool[start[i] .. start[i + 1])
  private final int[] rank;
  private final int[] table; // token index + 1, 0 = empty
  private final int mask;

  private BpeRanks(byte[] pool, int[] start, int[] rank, int size) {
    this.pool = pool;
    this.start = start;
    this.rank = rank;
    int capacity = Integer.highestOneBit(Math.max(4, size) * 2) * 2;
    this.table = new int[capacity];
    this.mask = capacity - 1;
    for (int i = 0; i < size; i++) {
      int s = start[i];
      int e = start[i + 1];
      int slot = hash(pool, s, e) & mask;
      while (table[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      table[slot] = i + 1;
    }
  }

  /** Number of tokens. */
  int size() {
    return rank.length;
  }

  /**
   * The rank of {@code bytes[from..to)}, or -1 when it is not a token.
   *
   * @param bytes the text's UTF-8 bytes
   */
  int rankOf(byte[] bytes, int from, int to) {
    int slot = hash(bytes, from, to) & mask;
    int len = to - from;
    while (true) {
      int entry = table[slot];
      if (entry == 0) {
        return -1;
      }
      int i = entry - 1;
      int s = start[i];
      if (start[i + 1] - s == len && Arrays.equals(pool, s, s + len, bytes, from, to)) {
        return rank[i];
      }
      slot = (slot + 1) & mask;
    }
  }

  private static int hash(byte[] b, int from, int to) {
    int h = 0x811c9dc5;
    for (int i = from; i < to; i++) {
      h = (h ^ (b[i] & 0xff)) * 0x01000193;
    }
    return h ^ (h >>> 16);
  }

  /** First bytes of the compact form: "CBPE" and the format version. */
  private static final int MAGIC = 0x43425045;

  private static final int VERSION = 1;

  /**
   * The ranks of an encoding: from the compact form made at build time ({@code <name>.bpe} beside
   * this class, see {@link BpeRanksCompiler}) when it is on the class path, else parsed from the
   * {@code .tiktoken} rank file.
   *
   * @param compact the class-path resource of the compact form
   * @param tiktoken the class-path resource of the rank file
   * @throws IllegalStateException naming the resource when neither can be read
   */
  static BpeRanks load(String compact, String tiktoken) {
    byte[] bin = read(compact, false);
    return bin != null ? fromCompact(bin, compact) : parse(read(tiktoken, true), tiktoken);
  }

  static byte[] readRequired(String resource) {
    return read(resource, true);
  }

  private static byte[] read(String resource, boolean required) {
    try (InputStream in = BpeRanks.class.getResourceAsStream(resource)) {
      if (in == null) {
        if (required) {
          throw new IllegalStateException(
              "the BPE rank file " + resource + " is not on the class path");
        }
        return null;
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the BPE rank file " + resource, e);
    }
  }

  /**
   * The compact form: the magic, the version, the token count n, the pool length, then n token
   * lengths (one unsigned byte each, token i has rank i) and the pool of every token's bytes in
   * rank order. Big-endian.
   */
  byte[] toCompact() {
    int n = size();
    for (int i = 0; i < n; i++) {
      if (rank[i] != i) {
        throw new IllegalStateException("the compact form needs ranks 0..n-1 in order");
      }
      if (start[i + 1] - start[i] > 255) {
        throw new IllegalStateException("the compact form needs tokens of at most 255 bytes");
      }
    }
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16 + n + pool.length);
    b.putInt(MAGIC).putInt(VERSION).putInt(n).putInt(pool.length);
    for (int i = 0; i < n; i++) {
      b.put((byte) (start[i + 1] - start[i]));
    }
    b.put(pool);
    return b.array();
  }

  static BpeRanks fromCompact(byte[] data, String source) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(data);
    if (data.length < 16 || b.getInt() != MAGIC || b.getInt() != VERSION) {
      throw new IllegalStateException(
          "the compact BPE ranks " + source + " are not of format version " + VERSION);
    }
    int n = b.getInt();
    int poolLength = b.getInt();
    if (n < 0 || poolLength < 0 || data.length != 16L + n + poolLength) {
      throw new IllegalStateException("the compact BPE ranks " + source + " are truncated");
    }
    int[] start = new int[n + 1];
    int[] rank = new int[n];
    int at = 0;
    for (int i = 0; i < n; i++) {
      start[i] = at;
      rank[i] = i;
      at += data[16 + i] & 0xff;
    }
    start[n] = at;
    if (at != poolLength) {
      throw new IllegalStateException("the compact BPE ranks " + source + " are inconsistent");
    }
    byte[] pool = Arrays.copyOfRange(data, 16 + n, data.length);
    return new BpeRanks(pool, start, rank, n);
  }

  /**
   * Parses a {@code .tiktoken} rank file: lines of a base64-encoded token, a space and its rank.
   *
   * @param source the file's name, for messages
   * @throws IllegalStateException naming the source and line when a line is malformed
   */
  static BpeRanks parse(byte[] data, String source) {
    int lines = 0;
    for (byte b : data) {
      if (b == '\n') {
        lines++;
      }
    }
    if (data.length > 0 && data[data.length - 1] != '\n') {
      lines++;
    }
    // Decoded tokens are at most 3/4 of their base64 text.
    byte[] pool = new byte[data.length];
    int[] start = new int[lines + 1];
    int[] rank = new int[lines];
    int n = 0;
    int out = 0;
    int pos = 0;
    int line = 0;
    while (pos < data.length) {
      line++;
      int eol = pos;
      while (eol < data.length && data[eol] != '\n') {
        eol++;
      }
      int end = eol > pos && data[eol - 1] == '\r' ? eol - 1 : eol;
      if (end > pos) {
        int space = pos;
        while (space < end && data[space] != ' ') {
          space++;
        }
        if (space == pos || space >= end - 1) {
          throw malformed(source, line);
        }
        start[n] = out;
        int bits = 0;
        int acc = 0;
        for (int i = pos; i < space; i++) {
          int c = data[i];
          if (c == '=') {
            break;
          }
          int v = c >= 0 && c < 128 ? BASE64[c] : -1;
          if (v < 0) {
            throw malformed(source, line);
          }
          acc = (acc << 6) | v;
          bits += 6;
          if (bits >= 8) {
            bits -= 8;
            pool[out++] = (byte) (acc >> bits);
          }
        }
        int r = 0;
        for (int i = space + 1; i < end; i++) {
          int d = data[i] - '0';
          if (d < 0 || d > 9) {
            throw malformed(source, line);
          }
          r = r * 10 + d;
        }
        rank[n++] = r;
      }
      pos = eol + 1;
    }
    start[n] = out;
    return new BpeRanks(
        Arrays.copyOf(pool, out), Arrays.copyOf(start, n + 1), Arrays.copyOf(rank, n), n);
  }

  private static IllegalStateException malformed(String source, int line) {
    return new IllegalStateException(
        "the BPE rank file " + source + " is malformed at line " + line);
  }
}
