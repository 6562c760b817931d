package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.json.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * Reading the proxy's stored items back as core messages, for the inspector page: one master-log
 * line at a time, and the stored compacted view. Nothing here changes what is stored.
 */
public final class ProxyInspection {
  private ProxyInspection() {}

  /**
   * Items decoded: the messages, or why they could not be read (then {@code messages} is empty).
   *
   * @param messages the core messages of the items
   * @param problem null, or why the items are not readable as the format
   */
  public record Decoded(List<Message> messages, String problem) {
    public Decoded {
      messages = List.copyOf(messages);
    }
  }

  /**
   * The messages of one stored item ({@link ProxyStore.LogEntry#body()}) of a conversation in
   * format {@code api} ({@link ProxyStore.Conversation#api()}).
   */
  public static Decoded item(String api, String json) {
    JsonNode node = Json.tryParse(json);
    if (node == null) {
      return new Decoded(List.of(), "not JSON");
    }
    return decode(api, List.of(node));
  }

  /**
   * The messages of a conversation's stored compacted view, or none before its first compaction.
   */
  public static Decoded view(ProxyStore.Conversation c) {
    if (c.viewItems() == null) {
      return new Decoded(List.of(), null);
    }
    JsonNode items = Json.tryParse(c.viewItems());
    if (items == null || !items.isArray()) {
      return new Decoded(List.of(), "the stored view is not a JSON array");
    }
    List<JsonNode> list = new ArrayList<>();
    if (c.viewSystem() != null) {
      JsonNode system = Json.tryParse(c.viewSystem());
      if (system != null) {
        list.add(Json.object().set("system", system));
      }
    }
    items.forEach(list::add);
    return decode(c.api(), list);
  }

  private static Decoded decode(String api, List<JsonNode> items) {
    WireApi w;
    try {
      w = WireApi.valueOf(api);
    } catch (IllegalArgumentException e) {
      return new Decoded(List.of(), "unknown format " + api);
    }
    try {
      return new Decoded(w.decode(items), null);
    } catch (WireApi.Unreadable e) {
      return new Decoded(List.of(), e.getMessage());
    } catch (RuntimeException e) {
      return new Decoded(List.of(), e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}
