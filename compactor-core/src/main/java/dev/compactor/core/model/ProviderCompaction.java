package dev.compactor.core.model;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Usage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the provider did to the context of one call: server-side compaction items and applied
 * context edits.
 *
 * <p><b>Carrying items forward.</b> A client puts the items of a response into the returned
 * assistant message's {@code metadata.extra} under {@value #EXTRA_KEY}; when that message is sent
 * again, the client of the same provider emits them in place (OpenAI: as input items before the
 * message; Anthropic: as the first content blocks of the assistant turn). So appending the reply to
 * the conversation, as usual, is all a caller does. {@link #itemsOf} and {@link #withItems} read
 * and write that representation, e.g. to build a conversation from a standalone compaction.
 *
 * @param items compaction items returned by the provider, in output order
 * @param appliedEdits context edits applied (Anthropic)
 * @param compactionUsage tokens the compaction step itself cost (Anthropic {@code usage.iterations}
 *     of type {@code compaction}), or null when not reported
 */
public record ProviderCompaction(
    List<CompactionItem> items, List<AppliedEdit> appliedEdits, Usage compactionUsage) {

  /** {@code metadata.extra} key of a message's compaction items. */
  public static final String EXTRA_KEY = "compaction_items";

  /** Nothing compacted, nothing edited. */
  public static final ProviderCompaction NONE = new ProviderCompaction(List.of(), List.of(), null);

  public ProviderCompaction {
    items = items == null ? List.of() : List.copyOf(items);
    appliedEdits = appliedEdits == null ? List.of() : List.copyOf(appliedEdits);
  }

  /** Whether the provider compacted: at least one item carries compacted content. */
  public boolean compacted() {
    return items.stream().anyMatch(i -> i.content() != null);
  }

  /** Whether any context edit was applied. */
  public boolean edited() {
    return !appliedEdits.isEmpty();
  }

  /**
   * The compaction items a message carries in {@code metadata.extra}, in order; empty when none.
   * Entries that are not in the shape {@link #withItems} writes are ignored.
   */
  public static List<CompactionItem> itemsOf(Message message) {
    Object v = message.metadata().extra().get(EXTRA_KEY);
    if (!(v instanceof List<?> list)) {
      return List.of();
    }
    List<CompactionItem> out = new ArrayList<>();
    for (Object o : list) {
      if (o instanceof Map<?, ?> m
          && m.get("provider") instanceof String p
          && m.get("item") instanceof Map<?, ?> item) {
        Map<String, Object> raw = new LinkedHashMap<>();
        item.forEach((k, val) -> raw.put(String.valueOf(k), val));
        out.add(new CompactionItem(p, raw));
      }
    }
    return List.copyOf(out);
  }

  /**
   * {@code metadata} with {@code items} stored under {@value #EXTRA_KEY} as {@code [{"provider": …,
   * "item": {…}}]} (plain JSON values, so the message log keeps them); removes the key when {@code
   * items} is empty.
   */
  public static MessageMetadata withItems(MessageMetadata metadata, List<CompactionItem> items) {
    Map<String, Object> extra = new LinkedHashMap<>(metadata.extra());
    if (items.isEmpty()) {
      extra.remove(EXTRA_KEY);
    } else {
      List<Object> list = new ArrayList<>();
      for (CompactionItem i : items) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("provider", i.provider());
        entry.put("item", i.raw());
        list.add(entry);
      }
      extra.put(EXTRA_KEY, list);
    }
    return new MessageMetadata(
        metadata.model(), metadata.provider(), metadata.usage(), metadata.input(), extra);
  }
}
