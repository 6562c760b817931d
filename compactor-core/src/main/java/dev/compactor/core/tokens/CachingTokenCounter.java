package dev.compactor.core.tokens;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/*
 * Design: one TokenCounter implementation for every family; only the TextTokenizer differs.
 * Message counts go through two cache levels. Level 1 is a WeakHashMap keyed by the (immutable)
 * Message itself: re-measuring the same message objects costs a hash lookup each, and messages
 * nobody references any more drop out, so memory is bounded by the live conversations. Level 2
 * (BPE tokenizers only, where tokenizing costs far more than hashing) is the shared LRU keyed by
 * counter name + SHA-256 of exactly what is counted, so an equal message re-read from disk or
 * re-created in another view with another id is not tokenized again. Estimates skip level 2:
 * counting code points is cheaper than hashing them.
 */
final class CachingTokenCounter implements TokenCounter {
  private final String name;
  private final TokenizerFamily family;
  private final TextTokenizer tokenizer;
  private final MessageOverhead overhead;
  private final TokenCountCache shared;
  private final int[] roleTokens = new int[Role.values().length];
  private final Map<Message, Integer> byMessage = new WeakHashMap<>();

  CachingTokenCounter(
      String name,
      TokenizerFamily family,
      TextTokenizer tokenizer,
      MessageOverhead overhead,
      TokenCountCache shared) {
    this.name = Objects.requireNonNull(name, "name");
    this.family = Objects.requireNonNull(family, "family");
    this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
    this.overhead = Objects.requireNonNull(overhead, "overhead");
    this.shared = shared;
    if (overhead.countRoleName()) {
      for (Role r : Role.values()) {
        roleTokens[r.ordinal()] = tokenizer.count(r.wireName());
      }
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public TokenizerFamily family() {
    return family;
  }

  @Override
  public MessageOverhead overhead() {
    return overhead;
  }

  @Override
  public int countText(String text) {
    return text.isEmpty() ? 0 : tokenizer.count(text);
  }

  @Override
  public int countMessage(Message message) {
    if (message.uiOnly()) {
      return 0;
    }
    synchronized (byMessage) {
      Integer cached = byMessage.get(message);
      if (cached != null) {
        return cached;
      }
    }
    int count;
    if (shared != null) {
      TokenCountCache.Key key = key(message);
      Integer hit = shared.get(key);
      if (hit != null) {
        count = hit;
      } else {
        count = compute(message);
        shared.put(key, count);
      }
    } else {
      count = compute(message);
    }
    synchronized (byMessage) {
      byMessage.put(message, count);
    }
    return count;
  }

  private int compute(Message m) {
    int n = overhead.perMessage();
    if (overhead.countRoleName()) {
      n += roleTokens[m.role().ordinal()];
    }
    n += countText(m.content());
    for (ReasoningBlock r : m.reasoning()) {
      n += countText(r.text());
    }
    for (ToolCall c : m.toolCalls()) {
      n += overhead.perToolCall() + countText(c.name()) + countText(c.arguments());
    }
    return n;
  }

  private TokenCountCache.Key key(Message m) {
    MessageDigest md = sha256();
    update(md, m.role().wireName());
    update(md, m.content());
    for (ReasoningBlock r : m.reasoning()) {
      md.update((byte) 2);
      update(md, r.text());
    }
    for (ToolCall c : m.toolCalls()) {
      md.update((byte) 3);
      update(md, c.name());
      update(md, c.arguments());
    }
    ByteBuffer b = ByteBuffer.wrap(md.digest());
    return new TokenCountCache.Key(name, b.getLong(), b.getLong());
  }

  private static void update(MessageDigest md, String s) {
    md.update(s.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  @Override
  public String toString() {
    return "TokenCounter[" + name + "]";
  }
}
