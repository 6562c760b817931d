package dev.compactor.log.imports;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The last step of every built-in importer: makes a message list satisfy {@link
 * dev.compactor.core.view.ViewValidator} when the source itself breaks an invariant, changing as
 * little as possible and never any text. Each kind of repair is reported as one of the
 * conversation's problems, naming the messages it changed.
 *
 * <ul>
 *   <li>A tool result that does not directly follow its call (no call, a second result, no call id,
 *       or separated from its call) becomes a {@code user} message with the same content; the call
 *       id it named is kept in {@code metadata.extra.orphan_tool_call_id}.
 *   <li>A call without a result, when the conversation goes on, is removed from the assistant
 *       message's tool calls and kept (id, name, arguments) in {@code
 *       metadata.extra.unanswered_tool_calls}. Calls of the last turn stay: they are pending.
 *   <li>A call id used a second time gets a {@code #n} suffix on the call and its results; the
 *       source id is kept in {@code metadata.extra.source_tool_call_id}.
 *   <li>A timestamp earlier than the one before it is cleared; the source value is kept in {@code
 *       metadata.extra.source_timestamp}.
 * </ul>
 *
 * <p>{@code uiOnly} messages are skipped, as the validator skips them.
 */
final class ViewRepair {
  private ViewRepair() {}

  /**
   * The repaired list; each kind of repair adds one sentence to {@code problems} naming the
   * messages it changed (index and id, the first few of them).
   */
  static List<Message> repair(List<Message> in, List<String> problems) {
    List<Message> out = new ArrayList<>(in);
    List<String> timestamps = fixTimestamps(out);
    Repairs r = fixToolPairing(out);
    Assembly.addCapped(
        problems,
        r.orphans,
        "tool result(s) without a matching call directly before them, imported as user messages"
            + " (metadata.extra.orphan_tool_call_id)");
    Assembly.addCapped(
        problems,
        r.unanswered,
        "tool call(s) without a result while the conversation goes on, moved to"
            + " metadata.extra.unanswered_tool_calls");
    Assembly.addCapped(
        problems,
        r.renamed,
        "repeated tool call id(s), renamed with a #n suffix (metadata.extra.source_tool_call_id)");
    Assembly.addCapped(
        problems,
        timestamps,
        "timestamp(s) earlier than the message before, cleared (source value kept in"
            + " metadata.extra.source_timestamp)");
    return out;
  }

  private record Repairs(List<String> orphans, List<String> unanswered, List<String> renamed) {}

  private static String where(int index, Message m) {
    return "message " + index + " (" + m.id() + ")";
  }

  private static List<String> fixTimestamps(List<Message> out) {
    Instant last = null;
    List<String> fixed = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) {
      Message m = out.get(i);
      if (m.uiOnly() || m.timestamp() == null) {
        continue;
      }
      if (last != null && m.timestamp().isBefore(last)) {
        out.set(
            i,
            m.toBuilder()
                .timestamp(null)
                .metadata(withExtra(m.metadata(), "source_timestamp", m.timestamp().toString()))
                .build());
        fixed.add(where(i, m) + " at " + m.timestamp());
      } else {
        last = m.timestamp();
      }
    }
    return fixed;
  }

  private static Repairs fixToolPairing(List<Message> out) {
    List<String> orphans = new ArrayList<>();
    List<String> unanswered = new ArrayList<>();
    List<String> renamed = new ArrayList<>();
    Set<String> usedCallIds = new HashSet<>();
    int i = 0;
    while (i < out.size()) {
      Message m = out.get(i);
      if (m.uiOnly()) {
        i++;
        continue;
      }
      if (m.role() == Role.TOOL) {
        orphans.add(orphanWhere(i, m));
        out.set(i, orphan(m));
        i++;
        continue;
      }
      if (m.role() != Role.ASSISTANT || !m.hasToolCalls()) {
        i++;
        continue;
      }
      // Unique call ids.
      Map<String, String> rename = new HashMap<>();
      List<ToolCall> calls = new ArrayList<>();
      for (ToolCall c : m.toolCalls()) {
        String id = c.id();
        if (!usedCallIds.add(id)) {
          int n = 2;
          while (usedCallIds.contains(c.id() + "#" + n)) {
            n++;
          }
          id = c.id() + "#" + n;
          usedCallIds.add(id);
          rename.putIfAbsent(c.id(), id);
          renamed.add(where(i, m) + ": " + c.id() + " → " + id);
        }
        calls.add(id.equals(c.id()) ? c : new ToolCall(id, c.name(), c.arguments()));
      }
      Map<String, ToolCall> byId = new LinkedHashMap<>();
      for (ToolCall c : calls) {
        byId.put(c.id(), c);
      }
      // The result block: tool messages directly after (uiOnly ones skipped).
      Set<String> answered = new HashSet<>();
      int j = i + 1;
      for (; j < out.size(); j++) {
        Message t = out.get(j);
        if (t.uiOnly()) {
          continue;
        }
        if (t.role() != Role.TOOL) {
          break;
        }
        String cid = t.toolCallId();
        if (cid != null && rename.containsKey(cid)) {
          String source = cid;
          cid = rename.get(cid);
          t =
              t.toBuilder()
                  .toolCallId(cid)
                  .metadata(withExtra(t.metadata(), "source_tool_call_id", source))
                  .build();
          out.set(j, t);
        }
        if (cid != null && byId.containsKey(cid) && answered.add(cid)) {
          continue;
        }
        orphans.add(orphanWhere(j, t));
        out.set(j, orphan(t));
      }
      boolean last = true;
      for (int k = j; k < out.size(); k++) {
        if (!out.get(k).uiOnly()) {
          last = false;
          break;
        }
      }
      List<ToolCall> kept = calls;
      List<Object> dropped = new ArrayList<>();
      if (!last && answered.size() < calls.size()) {
        kept = new ArrayList<>();
        for (ToolCall c : calls) {
          if (answered.contains(c.id())) {
            kept.add(c);
          } else {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("id", c.id());
            d.put("name", c.name());
            d.put("arguments", c.arguments());
            dropped.add(d);
            unanswered.add(where(i, m) + ": " + c.id() + " (" + c.name() + ")");
          }
        }
      }
      if (!rename.isEmpty() || !dropped.isEmpty()) {
        MessageMetadata md = m.metadata();
        if (!dropped.isEmpty()) {
          md = withExtra(md, "unanswered_tool_calls", dropped);
        }
        out.set(i, m.toBuilder().toolCalls(kept).metadata(md).build());
      }
      i = j;
    }
    return new Repairs(orphans, unanswered, renamed);
  }

  private static String orphanWhere(int index, Message t) {
    return where(index, t)
        + (t.toolCallId() == null ? " has no call id" : " answers " + t.toolCallId());
  }

  private static Message orphan(Message t) {
    MessageMetadata md = t.metadata();
    md =
        t.toolCallId() == null
            ? withExtra(md, "tool_result_without_id", true)
            : withExtra(md, "orphan_tool_call_id", t.toolCallId());
    return t.toBuilder().role(Role.USER).toolCallId(null).metadata(md).build();
  }

  static MessageMetadata withExtra(MessageMetadata md, String key, Object value) {
    Map<String, Object> extra = new LinkedHashMap<>(md.extra());
    extra.put(key, value);
    return new MessageMetadata(md.model(), md.provider(), md.usage(), md.input(), extra);
  }
}
