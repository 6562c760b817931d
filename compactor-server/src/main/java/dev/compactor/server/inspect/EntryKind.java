package dev.compactor.server.inspect;

import dev.compactor.core.message.Message;
import java.util.Locale;

/** What an entry of a view is: a master message sent as it is, or what a compaction put there. */
public enum EntryKind {
  /** A master message, unchanged. */
  VERBATIM,
  /** A tool output replaced by a placeholder (the {@code mask} strategy). */
  MASKED,
  /** A stale tool output replaced by a stub (the {@code trim} strategy). */
  STUBBED,
  /** A large tool output cut to its head and tail (the {@code trim} strategy). */
  TRUNCATED,
  /** An assistant message compressed extractively (the {@code trim} strategy). */
  COMPRESSED,
  /** A checkpoint or summary standing for earlier turns. */
  SUMMARISED,
  /** Any other synthesized message (a plugin's). */
  SYNTHESIZED;

  /** The lower-case name the page shows and its CSS class uses. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * What a synthesized message is, from the marks the built-in strategies leave ({@code
   * metadata.extra.compacted}, {@code metadata.extra.checkpoint}, the masked id suffix), or, when a
   * wire format carried no metadata (the proxy's stored views), from the text they start with.
   */
  public static EntryKind ofSynthesized(Message m) {
    Object compacted = m.metadata().extra().get("compacted");
    if (Boolean.TRUE.equals(m.metadata().extra().get("checkpoint"))
        || m.metadata().extra().containsKey("gpt_summary_uuid")) {
      return SUMMARISED;
    }
    if ("stub".equals(compacted)) {
      return STUBBED;
    }
    if ("truncated".equals(compacted)) {
      return TRUNCATED;
    }
    if ("extractive".equals(compacted)) {
      return COMPRESSED;
    }
    String id = m.id().toString();
    String text = m.content();
    if (id.endsWith("~masked") || text.startsWith("[Output masked - ")) {
      return MASKED;
    }
    if (text.startsWith("[Checkpoint: ")) {
      return SUMMARISED;
    }
    if (text.startsWith("[Stale tool output pruned")) {
      return STUBBED;
    }
    if (text.contains(" tokens truncated (lines ")) {
      return TRUNCATED;
    }
    return SYNTHESIZED;
  }
}
