package dev.compactor.core.recovery;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.core.view.Conversation;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The recovery tool an agent loop or a chat REPL can offer the model: {@code recall_output(id)}
 * returns the original text behind a masked tool output (or any other synthesized entry of a view),
 * read from the lossless master log with {@link Conversation#recover}. A masking placeholder names
 * the output's id ({@code <id>~masked}) and what it held; with the tool the model gets the whole
 * output back when an index name is not enough.
 *
 * <pre>{@code
 * ToolSpec spec = RecallTool.spec();               // add to the request's tools
 * String text = RecallTool.run(conversation, argumentsJson); // when the model calls it
 * }</pre>
 *
 * Stateless.
 */
public final class RecallTool {
  private RecallTool() {}

  /** The tool's name. */
  public static final String NAME = "recall_output";

  private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The tool definition: one required string argument {@code id}. */
  public static ToolSpec spec() {
    return new ToolSpec(
        NAME,
        "Returns the full original text of a tool output that the context manager masked or"
            + " summarized. Pass the id shown in the placeholder (the message id, with or without"
            + " its ~masked suffix).",
        "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\",\"description\":\"the"
            + " message id from the placeholder\"}},\"required\":[\"id\"]}");
  }

  /**
   * Runs a call of the tool: {@code arguments} is its JSON arguments object.
   *
   * @throws CompactorException when the arguments name no id, or no message has it (the message
   *     names the id)
   */
  public static String run(Conversation conversation, String arguments) {
    Objects.requireNonNull(arguments, "arguments");
    Matcher m = ID.matcher(arguments);
    if (!m.find()) {
      throw new CompactorException(
          NAME + ": the arguments must be a JSON object with a string \"id\", got " + arguments);
    }
    return recall(conversation, m.group(1).replace("\\\"", "\"").replace("\\\\", "\\"));
  }

  /**
   * The original text behind {@code id}: the recovered master messages' contents, in order, joined
   * by blank lines.
   *
   * @throws CompactorException when no master message or synthesized entry has this id
   */
  public static String recall(Conversation conversation, String id) {
    Objects.requireNonNull(conversation, "conversation");
    if (id == null || id.isBlank()) {
      throw new CompactorException(NAME + ": the id must not be blank");
    }
    String key = id.strip();
    List<Message> found;
    try {
      found = conversation.recover(MessageId.of(key));
    } catch (CompactorException e) {
      if (!key.endsWith("~masked")) {
        throw new CompactorException(NAME + ": no message has id \"" + key + "\"", e);
      }
      found = conversation.recover(MessageId.of(key.substring(0, key.length() - 7)));
    }
    StringBuilder sb = new StringBuilder();
    for (Message msg : found) {
      if (sb.length() > 0) {
        sb.append("\n\n");
      }
      sb.append(msg.content());
    }
    return sb.toString();
  }
}
