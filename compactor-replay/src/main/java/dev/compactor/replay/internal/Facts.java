package dev.compactor.replay.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.compaction.text.Identifiers;
import dev.compactor.core.compaction.text.TextFeatures.IdentifierKind;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.ToolCall;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * The identifiers ("facts") of a message that needed-fact recall is measured on.
 *
 * <p>A fact is one of:
 *
 * <ul>
 *   <li>a <b>file path</b> or file name with a known extension ({@link TextFeatures}' rules: {@code
 *       src/foo.py}, {@code /testbed/setup.cfg}, {@code pom.xml});
 *   <li>an <b>error name</b>: a capitalised word ending in {@code Error} or {@code Exception}
 *       ({@code ValidationError}, also the last segment of a qualified name);
 *   <li>a <b>number of four or more digits</b> ({@code 1024}, {@code 20250929});
 *   <li>a <b>quoted string</b>: 3–80 characters on one line between double quotes or backticks, not
 *       a JSON key;
 *   <li>a <b>function or class name</b>: a name directly followed by {@code (} ({@code
 *       load_dataset(}), a name after {@code def}, {@code class}, {@code function}, {@code fn},
 *       {@code func}, {@code interface}, {@code record} or {@code enum}, a CamelCase name with two
 *       or more capitals and a lower-case letter ({@code TokenWindowChatMemory}, {@code
 *       DataFrame}), or a snake_case name with an inner underscore ({@code get_value}, {@code
 *       __init__}); names of at least 3 characters, minus a short list of language keywords and
 *       ubiquitous built-ins ({@code print}, {@code len}, {@code self}, …) that would be "recalled"
 *       by any view.
 * </ul>
 *
 * A message's text is its content, its reasoning blocks, and its tool calls' names and arguments;
 * JSON arguments are parsed and their string values scanned (so a quoted string inside a shell
 * command counts, while JSON keys do not). Tool call ids and ticket numbers are not facts. {@code
 * uiOnly} messages have none.
 *
 * <p>Stateless and thread-safe.
 */
public final class Facts {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Facts() {}

  /**
   * The facts of a message (see the class comment).
   *
   * @param message never null
   * @return a new mutable set; empty for a {@code uiOnly} message
   */
  public static Set<String> of(Message message) {
    Set<String> out = new HashSet<>();
    if (message.uiOnly()) {
      return out;
    }
    scan(message.content(), out);
    for (ReasoningBlock r : message.reasoning()) {
      if (r.text() != null) {
        scan(r.text(), out);
      }
    }
    for (ToolCall c : message.toolCalls()) {
      if (c.name() != null) {
        names(c.name() + "(", out);
      }
      arguments(c.arguments(), out);
    }
    return out;
  }

  /**
   * The facts of a plain text.
   *
   * @param text never null
   */
  public static Set<String> ofText(String text) {
    Set<String> out = new HashSet<>();
    scan(text, out);
    return out;
  }

  private static void arguments(String arguments, Set<String> out) {
    if (arguments == null || arguments.isBlank()) {
      return;
    }
    JsonNode node;
    try {
      node = JSON.readTree(arguments);
    } catch (JsonProcessingException e) {
      scan(arguments, out);
      return;
    }
    strings(node, out);
  }

  private static void strings(JsonNode node, Set<String> out) {
    if (node == null) {
      return;
    }
    if (node.isTextual()) {
      scan(node.asText(), out);
    } else if (node.isNumber()) {
      scan(node.asText(), out);
    } else if (node.isContainerNode()) {
      for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
        strings(it.next(), out);
      }
    }
  }

  private static void scan(String text, Set<String> out) {
    if (text.isEmpty()) {
      return;
    }
    Identifiers.forEachTyped(
        text,
        true,
        (id, kind) -> {
          if (kind != IdentifierKind.CALL_ID && kind != IdentifierKind.ISSUE) {
            out.add(id);
          }
        });
    names(text, out);
  }

  /**
   * Function and class names (see the class comment), in one pass: the code names {@link
   * Identifiers#forEachCodeName} finds, the same definition the compaction strategies use to decide
   * what a placeholder or a checkpoint keeps.
   */
  static void names(String text, Set<String> out) {
    Identifiers.forEachCodeName(text, out::add);
  }
}
