package dev.compactor.core.tokens;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ToolSpec;
import java.util.List;

/**
 * Counts the tokens of texts, messages and tool definitions for one model family.
 *
 * <p>A message counts its content, its reasoning blocks and its tool calls (name + arguments), plus
 * the {@linkplain #overhead() per-message overhead}; a {@link Message#uiOnly() uiOnly} message
 * counts 0. Tool call ids and {@code toolCallId} are not counted. A request counts the sum of its
 * messages plus {@link MessageOverhead#replyPriming()} once (see {@link #countMessages}).
 *
 * <p>Message counts are cached: first by the message itself (a weak map, so a message that is no
 * longer referenced drops out), then — for BPE tokenizers — by a SHA-256 of what is counted plus
 * this counter's {@link #name()}, in a bounded LRU shared by all counters. Counting a conversation
 * again after one more message therefore tokenizes only the new message.
 *
 * <p>Implementations are thread-safe. Example:
 *
 * <pre>{@code
 * TokenCounter counter = TokenCounters.forModel("openai/gpt-4o");
 * long tokens = counter.countMessages(conversation.activeMessages());
 * }</pre>
 */
public interface TokenCounter {

  /**
   * A name that identifies what this counter computes, e.g. {@code o200k_base} or {@code
   * estimate(3.000)}. Two counters with the same name must give the same counts: the name is part
   * of the shared cache key.
   */
  String name();

  /** The tokenizer family this counter implements. */
  TokenizerFamily family();

  /** The overheads this counter adds around texts. */
  MessageOverhead overhead();

  /**
   * The tokens of a plain text, with no overhead. For BPE families this equals jtokkit's {@code
   * countTokensOrdinary} (special-token markers in the text are counted as ordinary text, never
   * rejected). The built-in BPE counters remember the counts of short texts (a line of tool output,
   * a marker), so measuring the same lines again — as every trim of a large output does — does not
   * tokenize them again; long texts are tokenized on every call.
   *
   * @param text never null
   */
  int countText(String text);

  /**
   * The tokens of one message as part of a request: role overhead, content, reasoning, tool calls.
   *
   * @param message never null
   * @return 0 for a {@code uiOnly} message, otherwise &gt; 0
   */
  int countMessage(Message message);

  /**
   * The same count as {@link #countMessage}, for a message whose content repeats lines this counter
   * has just counted with {@link #countText}, as the replacement of a truncated output repeats the
   * head and tail lines its truncation measured. The built-in {@code o200k_base} counter then adds
   * up the lines' remembered counts wherever its split pattern proves that the text counts the same
   * in parts as whole, and tokenizes only the rest (the marker between head and tail); the count is
   * exact either way. The other counters count as {@link #countMessage} does. Like it, the count is
   * remembered for this message.
   *
   * @param message never null
   * @return 0 for a {@code uiOnly} message, otherwise &gt; 0
   */
  default int countMessageReusingLines(Message message) {
    return countMessage(message);
  }

  /**
   * The tokens of a request made of these messages: the sum of {@link #countMessage} plus {@link
   * MessageOverhead#replyPriming()} when at least one message is counted. uiOnly messages count 0.
   *
   * @param messages never null
   */
  default long countMessages(List<Message> messages) {
    int[] each = countEach(messages);
    long total = 0;
    boolean any = false;
    for (int i = 0; i < each.length; i++) {
      if (!messages.get(i).uiOnly()) {
        total += each[i];
        any = true;
      }
    }
    return any ? total + overhead().replyPriming() : 0;
  }

  /**
   * {@link #countMessage} of every message, in order. The built-in counters tokenize the messages
   * they have not counted yet on several threads (the common fork-join pool) when there is enough
   * text to pay for it, as when a long conversation is loaded into a new process.
   *
   * @param messages never null
   * @return one count per message; 0 for a {@code uiOnly} one
   */
  default int[] countEach(List<Message> messages) {
    int[] out = new int[messages.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = countMessage(messages.get(i));
    }
    return out;
  }

  /**
   * The tokens one tool definition adds to a request: {@code name + ":" + description} and the
   * parameters' JSON schema text, tokenized, plus {@link MessageOverhead#perToolDefinition()}.
   * Providers render schemas in their own compact forms; counting the JSON text errs on the high
   * side. The once-per-request {@link MessageOverhead#toolDefinitionsEnd()} is added by {@link
   * #countToolDefinitions}, not here.
   *
   * @param name tool name, never null
   * @param description description, or null
   * @param parametersSchema JSON schema text of the parameters, or null
   */
  default int countToolDefinition(String name, String description, String parametersSchema) {
    String desc = description == null ? "" : description;
    int tokens = overhead().perToolDefinition() + countText(name + ":" + desc);
    if (parametersSchema != null && !parametersSchema.isEmpty()) {
      tokens += countText(parametersSchema);
    }
    return tokens;
  }

  /**
   * The tokens a set of tool definitions adds to a request: each {@link #countToolDefinition} plus
   * {@link MessageOverhead#toolDefinitionsEnd()} once; 0 for no tools.
   *
   * @param tools never null
   */
  default long countToolDefinitions(List<ToolSpec> tools) {
    if (tools.isEmpty()) {
      return 0;
    }
    long total = overhead().toolDefinitionsEnd();
    for (ToolSpec t : tools) {
      total += countToolDefinition(t.name(), t.description(), t.jsonSchema());
    }
    return total;
  }
}
