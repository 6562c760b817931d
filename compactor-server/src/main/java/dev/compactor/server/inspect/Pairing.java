package dev.compactor.server.inspect;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tool pairing of a log: which result answers which call, and what is missing. A log row holds one
 * message (a conversation directory) or the few messages one wire item decodes to (the proxy).
 */
final class Pairing {
  private Pairing() {}

  /** For each row, how it pairs ("c1 → #4", "← grep c1 at #3", "c2: no result"), or null. */
  static List<String> of(List<List<Message>> rows) {
    Map<String, Integer> callAt = new HashMap<>();
    Map<String, String> callName = new HashMap<>();
    Map<String, Integer> resultAt = new HashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      for (Message m : rows.get(i)) {
        for (ToolCall c : m.toolCalls()) {
          callAt.putIfAbsent(c.id(), i);
          callName.putIfAbsent(c.id(), c.name());
        }
        if (m.toolCallId() != null) {
          resultAt.putIfAbsent(m.toolCallId(), i);
        }
      }
    }
    List<String> out = new ArrayList<>(rows.size());
    for (List<Message> row : rows) {
      List<String> parts = new ArrayList<>();
      for (Message m : row) {
        for (ToolCall c : m.toolCalls()) {
          Integer r = resultAt.get(c.id());
          parts.add(c.id() + (r == null ? ": no result" : " → #" + r));
        }
        if (m.toolCallId() != null) {
          Integer c = callAt.get(m.toolCallId());
          parts.add(
              c == null
                  ? "result of " + m.toolCallId() + ": no call"
                  : "← " + callName.get(m.toolCallId()) + " " + m.toolCallId() + " at #" + c);
        }
      }
      out.add(parts.isEmpty() ? null : String.join(", ", parts));
    }
    return out;
  }

  /** "name(arguments)" for each call of the messages. */
  static List<String> calls(List<Message> ms) {
    List<String> out = new ArrayList<>();
    for (Message m : ms) {
      m.toolCalls().forEach(c -> out.add(c.name() + "(" + c.arguments() + ")"));
    }
    return out;
  }

  /** The content of the messages, then a line "→ name(arguments)" for each call they make. */
  static String text(List<Message> ms) {
    StringBuilder b = new StringBuilder();
    for (Message m : ms) {
      if (b.length() > 0 && !m.content().isEmpty()) {
        b.append('\n');
      }
      b.append(m.content());
      for (ToolCall c : m.toolCalls()) {
        if (b.length() > 0) {
          b.append('\n');
        }
        b.append("→ ").append(c.name()).append('(').append(c.arguments()).append(')');
      }
    }
    return b.toString();
  }
}
