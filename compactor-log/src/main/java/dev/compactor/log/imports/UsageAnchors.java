package dev.compactor.log.imports;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.PrefixDigester;
import java.util.ArrayList;
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
 * <p>The prefix digest is computed incrementally (one pass, O(total text)) with {@link
 * PrefixDigester}, which {@link Digests#prefix} is built on.
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
    PrefixDigester digest = new PrefixDigester();
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      if (candidate(m, anchorable)) {
        InputFingerprint f = new InputFingerprint(i, digest.digest(), m.metadata().model());
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
}
