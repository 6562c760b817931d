package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The chain digests of recent requests ({@link ItemDigests#chain}), kept with the bytes their items
 * were read from, so that a request whose leading items are byte for byte those of a kept request
 * (the next turn of a conversation: the history so far, then a few new items) takes their chain
 * digests as they are and digests only its new items.
 *
 * <p>Exact: a kept prefix is used only after every one of its items has been compared, byte range
 * against byte range, with the request's (and, for an item the format wraps, such as Anthropic's
 * {@code system}, the wrapping field's name); the same bytes are read as the same JSON, so their
 * digests are the ones {@link ItemDigests#chain} gives. A request that differs anywhere in those
 * items, by one byte, is digested from its first item on. What is kept is a function of the items'
 * bytes only, never of a conversation or a tenant: it decides nothing about matching, it only saves
 * recomputing the same digests.
 *
 * <p>It also finds, for a new request's bytes, a kept body that begins with the same bytes ({@link
 * #earlier}), so that {@link ParsedBody#parse(byte[], ParsedBody)} reads only what follows them.
 * The kept bodies are indexed by samples of their first 4 KB, 8 KB, 16 KB … (every power of two up
 * to the end of their last item), within the scope they were kept in (the tenant): the bytes are
 * compared before anything is taken.
 *
 * <p>Bounded: at most {@link #maxBytes} of request bodies and their trees are kept (a tree counted
 * as {@value #TREE_FACTOR} times its bytes), the least recently used dropped first; a request that
 * extends a kept one replaces it. Thread-safe.
 */
final class ChainMemo {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * The default bound on the bodies and trees kept: 128 MB (about a hundred requests of 300 KB), or
   * an eighth of the JVM's largest heap when that is less.
   */
  static final long DEFAULT_MAX_BYTES = Math.min(128L << 20, Runtime.getRuntime().maxMemory() / 8);

  /**
   * What a body's tree is counted as, in multiples of its bytes: a Jackson tree of a long
   * conversation's body takes about 2.2 times the body's bytes on the heap (measured on a 150 KB
   * body of tool calls and outputs, English text).
   */
  static final int TREE_FACTOR = 3;

  /** The shortest shared beginning {@link #earlier} looks for: 4 KB. */
  private static final int MIN_PREFIX_BITS = 12;

  private final long maxBytes;
  private final LinkedHashMap<Long, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private final Map<Long, Entry> prefixes = new HashMap<>();
  private long bytes;
  private long reused;

  /**
   * What one request's items were: where in its body, wrapped how, and their chain digests; the
   * body as parsed, and its keys in {@link #prefixes}.
   */
  private record Entry(
      long key,
      byte[] raw,
      long[] spans,
      String[] wrappers,
      List<String> chain,
      ParsedBody body,
      long[] prefixKeys) {
    int length() {
      return wrappers.length;
    }

    long weight() {
      return (long) raw.length * (1 + TREE_FACTOR);
    }
  }

  ChainMemo(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must be 0 or more, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /**
   * A kept body, kept in {@code scope}, whose bytes begin with at least 4 KB of {@code raw}'s (the
   * longest such beginning this index finds); or null.
   */
  ParsedBody earlier(String scope, byte[] raw) {
    int top = 31 - Integer.numberOfLeadingZeros(Math.max(1, raw.length));
    if (maxBytes == 0 || top < MIN_PREFIX_BITS) {
      return null;
    }
    long s = Objects.hashCode(scope);
    long[] keys = new long[top - MIN_PREFIX_BITS + 1];
    for (int bits = top; bits >= MIN_PREFIX_BITS; bits--) {
      keys[top - bits] = prefixKey(s, raw, 1 << bits);
    }
    Entry[] found = new Entry[keys.length];
    synchronized (this) {
      for (int i = 0; i < keys.length; i++) {
        found[i] = prefixes.get(keys[i]);
      }
    }
    for (int i = 0; i < found.length; i++) {
      int length = 1 << (top - i);
      Entry e = found[i];
      if (e != null
          && e.raw().length >= length
          && Arrays.mismatch(raw, 0, length, e.raw(), 0, length) < 0) {
        return e.body();
      }
    }
    return null;
  }

  /**
   * The body kept last, in {@code scope}, whose first 4 KB are those of {@code raw} (of which only
   * the first 4 KB need be filled yet), or null: a request still arriving is most likely the next
   * turn of that body's conversation. Only a hint, used before the body is whole ({@link
   * EarlyForward}): nothing is compared but those 4 KB.
   */
  ParsedBody latestBeginningLike(String scope, byte[] raw) {
    int length = 1 << MIN_PREFIX_BITS;
    if (maxBytes == 0 || raw.length < length) {
      return null;
    }
    Entry e;
    synchronized (this) {
      e = prefixes.get(prefixKey(Objects.hashCode(scope), raw, length));
    }
    return e != null && Arrays.mismatch(raw, 0, length, e.raw(), 0, length) < 0 ? e.body() : null;
  }

  /**
   * The chain digests of {@code items}, read from {@code body}: as {@link ItemDigests#chain}; the
   * body is kept for {@link #earlier} in {@code scope}.
   */
  List<String> chain(String scope, ParsedBody body, List<JsonNode> items) {
    int k = items.size();
    long[] spans = new long[2 * k];
    String[] wrappers = new String[k];
    long[] keys = new long[k];
    int placed = 0; // items 0..placed-1 lie in the body's bytes
    long h = 0x9E3779B97F4A7C15L;
    for (int i = 0; i < k; i++) {
      if (!place(body, items.get(i), spans, wrappers, i)) {
        break;
      }
      h = mix(h, body.raw, spans[2 * i], spans[2 * i + 1], wrappers[i]);
      keys[i] = h;
      placed++;
    }
    Entry prefix = null;
    if (maxBytes > 0) {
      for (int n = placed; n >= 1 && prefix == null; n--) {
        Entry e;
        synchronized (this) {
          e = entries.get(keys[n - 1]);
        }
        if (e != null && e.length() == n && same(e, body.raw, spans, wrappers, n)) {
          prefix = e;
        }
      }
    }
    if (prefix != null) {
      synchronized (this) {
        reused += prefix.length();
      }
    }
    List<String> chain =
        List.copyOf(ItemDigests.chain(items, prefix == null ? List.of() : prefix.chain()));
    if (maxBytes > 0
        && placed == k
        && k > 0
        && (long) body.raw.length * (1 + TREE_FACTOR) <= maxBytes) {
      long end = 0;
      for (int i = 0; i < k; i++) {
        end = Math.max(end, spans[2 * i + 1]);
      }
      keep(
          new Entry(
              keys[k - 1],
              body.raw,
              spans,
              wrappers,
              chain,
              body,
              prefixKeys(Objects.hashCode(scope), body.raw, end)),
          prefix);
    }
    return chain;
  }

  /** Bytes of bodies kept now. */
  synchronized long keptBytes() {
    return bytes;
  }

  /** Items whose digests were taken from a kept request so far. */
  synchronized long reused() {
    return reused;
  }

  /** Requests kept now. */
  synchronized int kept() {
    return entries.size();
  }

  private synchronized void keep(Entry e, Entry replaced) {
    if (replaced != null && entries.remove(replaced.key(), replaced)) {
      forget(replaced);
    }
    Entry old = entries.put(e.key(), e);
    if (old != null) {
      forget(old);
    }
    bytes += e.weight();
    for (long key : e.prefixKeys()) {
      prefixes.put(key, e);
    }
    Iterator<Map.Entry<Long, Entry>> it = entries.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      Entry dropped = it.next().getValue();
      it.remove();
      forget(dropped);
    }
  }

  /** Takes out what an entry no longer kept counts and indexes. */
  private void forget(Entry e) {
    bytes -= e.weight();
    for (long key : e.prefixKeys()) {
      prefixes.remove(key, e);
    }
  }

  /** The keys of a body's beginnings of 4 KB, 8 KB, … up to {@code end}. */
  private static long[] prefixKeys(long scope, byte[] raw, long end) {
    int top = 31 - Integer.numberOfLeadingZeros((int) Math.max(1, end));
    if (top < MIN_PREFIX_BITS) {
      return new long[0];
    }
    long[] out = new long[top - MIN_PREFIX_BITS + 1];
    for (int bits = MIN_PREFIX_BITS; bits <= top; bits++) {
      out[bits - MIN_PREFIX_BITS] = prefixKey(scope, raw, 1 << bits);
    }
    return out;
  }

  /**
   * A key of the first {@code length} bytes: the length, the scope and 16 evenly spaced 8-byte
   * samples. Only an index: the bytes are compared before a kept body is used.
   */
  private static long prefixKey(long scope, byte[] raw, int length) {
    long h = fold(fold(0x2545F4914F6CDD1DL, length), scope);
    for (int i = 0; i < 16; i++) {
      h = fold(h, (long) LONGS.get(raw, (int) ((long) i * (length - 8) / 15)));
    }
    return h;
  }

  /**
   * Where item {@code i} lies in the body: the item itself, or the single value of an item the
   * format made around a top-level value ({@code {"system": …}}, {@code {"instructions": …}}).
   */
  private static boolean place(
      ParsedBody body, JsonNode item, long[] spans, String[] wrappers, int i) {
    long[] s = body.span(item, i);
    String wrapper = null;
    if (s == null && item.isObject() && item.size() == 1) {
      wrapper = item.fieldNames().next();
      s = body.span(item.get(wrapper), i);
    }
    if (s == null) {
      return false;
    }
    spans[2 * i] = s[0];
    spans[2 * i + 1] = s[1];
    wrappers[i] = wrapper;
    return true;
  }

  private static boolean same(Entry e, byte[] raw, long[] spans, String[] wrappers, int n) {
    for (int i = 0; i < n; i++) {
      if (!Objects.equals(e.wrappers()[i], wrappers[i])) {
        return false;
      }
      int from = (int) spans[2 * i];
      int to = (int) spans[2 * i + 1];
      int keptFrom = (int) e.spans()[2 * i];
      int keptTo = (int) e.spans()[2 * i + 1];
      if (!Arrays.equals(raw, from, to, e.raw(), keptFrom, keptTo)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Folds one item into a prefix's key: its length, wrapper and three 8-byte samples (start,
   * middle, end). Only an index: two different prefixes with one key merely cost a recomputation,
   * the bytes are compared before anything kept is used.
   */
  private static long mix(long h, byte[] raw, long from, long to, String wrapper) {
    int len = (int) (to - from);
    h = fold(h, len);
    h = fold(h, wrapper == null ? 0 : wrapper.hashCode());
    if (len >= 8) {
      int f = (int) from;
      h = fold(h, (long) LONGS.get(raw, f));
      h = fold(h, (long) LONGS.get(raw, f + (len - 8) / 2));
      h = fold(h, (long) LONGS.get(raw, f + len - 8));
    } else {
      for (int i = (int) from; i < to; i++) {
        h = fold(h, raw[i]);
      }
    }
    return h;
  }

  private static long fold(long h, long v) {
    h ^= v;
    h *= 0xBF58476D1CE4E5B9L;
    return h ^ (h >>> 31);
  }
}
