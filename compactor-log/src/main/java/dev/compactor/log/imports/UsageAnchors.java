package dev.compactor.log.imports;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.ToolCall;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Predicate;

/**
 * Sets {@code metadata.input} on imported assistant messages that carry provider usage, so that
 * usage can serve as the usage anchor of the imported conversation: the fingerprint is (index of
 * the message, {@link Digests#prefix} of every message before it, model).
 *
 * <p>Only messages with a model and a positive reported input qualify (a zero input, e.g. Claude
 * Code's synthetic error messages, anchors nothing).
 *
 * <p>The prefix digest is computed incrementally (one pass, O(total text)) with exactly the byte
 * layout of {@link Digests#prefix}; a test holds the two equal.
 */
final class UsageAnchors {
  private UsageAnchors() {}

  /**
   * A copy of {@code messages} where each message with usage and a model that {@code anchorable}
   * accepts gets its input fingerprint.
   */
  static List<Message> apply(List<Message> messages, Predicate<Message> anchorable) {
    boolean any = false;
    for (Message m : messages) {
      if (candidate(m, anchorable)) {
        any = true;
        break;
      }
    }
    if (!any) {
      return messages;
    }
    List<Message> out = new ArrayList<>(messages.size());
    PrefixDigest digest = new PrefixDigest();
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      if (candidate(m, anchorable)) {
        InputFingerprint f = new InputFingerprint(i, digest.current(), m.metadata().model());
        m = m.toBuilder().metadata(m.metadata().withInput(f)).build();
      }
      out.add(m);
      digest.add(m);
    }
    return out;
  }

  private static boolean candidate(Message m, Predicate<Message> anchorable) {
    return m.metadata().usage() != null
        && m.metadata().usage().totalInput() > 0
        && m.metadata().model() != null
        && !m.uiOnly()
        && anchorable.test(m);
  }

  /** Incremental {@link Digests#prefix}. */
  static final class PrefixDigest {
    private final MessageDigest md;

    PrefixDigest() {
      try {
        md = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is required by every Java platform", e);
      }
    }

    void add(Message m) {
      update(m.role().wireName());
      update(m.content());
      for (ReasoningBlock r : m.reasoning()) {
        update(r.type());
        update(r.text());
      }
      for (ToolCall c : m.toolCalls()) {
        update(c.id());
        update(c.name());
        update(c.arguments());
      }
      update(m.toolCallId() == null ? "" : m.toolCallId());
      update(m.uiOnly() ? "1" : "0");
      md.update((byte) 1);
    }

    /** The digest of the messages added so far. */
    String current() {
      try {
        return HexFormat.of().formatHex(((MessageDigest) md.clone()).digest());
      } catch (CloneNotSupportedException e) {
        throw new IllegalStateException("SHA-256 digests are cloneable on every JDK", e);
      }
    }

    private void update(String s) {
      md.update(s.getBytes(StandardCharsets.UTF_8));
      md.update((byte) 0);
    }
  }
}
