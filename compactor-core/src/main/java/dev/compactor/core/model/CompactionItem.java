package dev.compactor.core.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An opaque compaction item a provider returned, to be sent back unchanged on the next request:
 * OpenAI's {@code {"type":"compaction","id":"cmp_…","encrypted_content":"…"}} output item or
 * Anthropic's {@code {"type":"compaction","content":"Summary…"}} content block.
 *
 * <p>The provider drops everything before the newest compaction item it receives, so the item
 * stands for the conversation up to where it appeared. Clients carry items on the assistant {@link
 * dev.compactor.core.message.Message} they return (see {@link ProviderCompaction#itemsOf}); a
 * client only sends items of its own provider.
 *
 * @param provider {@code openai} or {@code anthropic}
 * @param raw the item exactly as received, as plain JSON values (String, Number, Boolean, null,
 *     List, Map); deeply unmodifiable
 */
public record CompactionItem(String provider, Map<String, Object> raw) {
  public CompactionItem {
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(raw, "raw");
    @SuppressWarnings("unchecked")
    Map<String, Object> frozen = (Map<String, Object>) freeze(raw);
    raw = frozen;
  }

  /** The item's {@code type} ({@code compaction}), or null. */
  public String type() {
    return raw.get("type") instanceof String s ? s : null;
  }

  /** The item's {@code id} (OpenAI {@code cmp_…}), or null. */
  public String id() {
    return raw.get("id") instanceof String s ? s : null;
  }

  /**
   * The compacted context: OpenAI's {@code encrypted_content} (opaque) or Anthropic's summary
   * {@code content}; null when the provider's compaction failed (Anthropic sends {@code content:
   * null} then).
   */
  public String content() {
    if (raw.get("encrypted_content") instanceof String s) {
      return s;
    }
    return raw.get("content") instanceof String s ? s : null;
  }

  private static Object freeze(Object v) {
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> copy = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        copy.put(String.valueOf(e.getKey()), freeze(e.getValue()));
      }
      return Collections.unmodifiableMap(copy);
    }
    if (v instanceof List<?> l) {
      List<Object> copy = new ArrayList<>(l.size());
      for (Object o : l) {
        copy.add(freeze(o));
      }
      return Collections.unmodifiableList(copy);
    }
    return v;
  }
}
