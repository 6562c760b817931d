package dev.compactor.core.tokens;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded LRU of message token counts keyed by counter name and a 128-bit content hash, shared by
 * the BPE counters. Large on purpose: a 2,000-message log must fit many times over (a 1,000-entry
 * FIFO thrashes on such logs); at about 100 bytes an entry the default costs at most ~10 MB.
 * Synchronized: lookups are short next to tokenizing. Capacity 0 keeps nothing.
 */
final class TokenCountCache {
  record Key(String counter, long hi, long lo) {}

  private final int capacity;
  private final LinkedHashMap<Key, Integer> map;

  TokenCountCache(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("cache capacity must be >= 0, got " + capacity);
    }
    this.capacity = capacity;
    this.map =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Integer> eldest) {
            return size() > TokenCountCache.this.capacity;
          }
        };
  }

  /** False for a cache of capacity 0, which keeps nothing: its users need not compute keys. */
  boolean enabled() {
    return capacity > 0;
  }

  synchronized Integer get(Key key) {
    return map.get(key);
  }

  synchronized void put(Key key, int count) {
    map.put(key, count);
  }

  synchronized int size() {
    return map.size();
  }
}
