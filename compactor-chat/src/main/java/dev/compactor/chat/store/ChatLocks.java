package dev.compactor.chat.store;

import dev.compactor.chat.base.ChatKey;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One fair lock per chat, created on first use and dropped when nobody holds or waits for it, so
 * the map stays as small as the number of chats in use.
 */
final class ChatLocks {
  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock(true);
    int users;
  }

  /** A held lock; closing it releases the lock. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private final Map<ChatKey, Entry> locks = new HashMap<>();

  Held lock(ChatKey key) {
    Entry e;
    synchronized (locks) {
      e = locks.computeIfAbsent(key, k -> new Entry());
      e.users++;
    }
    try {
      e.lock.lock();
    } catch (RuntimeException | Error t) {
      release(key, e);
      throw t;
    }
    return () -> {
      e.lock.unlock();
      release(key, e);
    };
  }

  private void release(ChatKey key, Entry e) {
    synchronized (locks) {
      if (--e.users == 0) {
        locks.remove(key);
      }
    }
  }

  /** Chats with a lock entry now (for tests). */
  int size() {
    synchronized (locks) {
      return locks.size();
    }
  }
}
