package dev.compactor.core.tokens;

/**
 * Tokens a provider adds around the text of messages and tool definitions, which a count of the
 * text alone misses.
 *
 * <p>{@link #OPENAI} follows OpenAI's documented chat format accounting: 3 tokens per message (the
 * {@code <|start|>role<|message|>…<|end|>} frame) plus the tokens of the role name, 3 tokens to
 * prime the reply, and for tool definitions 7 tokens per function plus 12 once per request. A tool
 * call inside an assistant message costs its name and argument tokens plus 3 (our assumption:
 * OpenAI documents none for calls).
 *
 * <p>{@link #ESTIMATE} is used for Anthropic, Google and other models whose providers document no
 * per-message overhead: 4 tokens per message (role markers and separators, role name included), 3
 * to prime the reply, 3 per tool call, 7 per tool definition and 12 per tool set, mirroring the
 * OpenAI frame so that estimates err on the high side.
 *
 * @param perMessage tokens added to every counted message
 * @param countRoleName whether the role name ({@code user}, …) is tokenized and added too
 * @param replyPriming tokens added once per request for the start of the reply
 * @param perToolCall tokens added per tool call, besides its name and arguments
 * @param perToolDefinition tokens added per tool definition, besides its text
 * @param toolDefinitionsEnd tokens added once when a request defines any tools
 */
public record MessageOverhead(
    int perMessage,
    boolean countRoleName,
    int replyPriming,
    int perToolCall,
    int perToolDefinition,
    int toolDefinitionsEnd) {

  /** OpenAI's documented chat accounting (see the class comment). */
  public static final MessageOverhead OPENAI = new MessageOverhead(3, true, 3, 3, 7, 12);

  /** Our conservative overhead for models whose providers document none. */
  public static final MessageOverhead ESTIMATE = new MessageOverhead(4, false, 3, 3, 7, 12);

  /** No overhead at all: counts are the text's tokens only. */
  public static final MessageOverhead NONE = new MessageOverhead(0, false, 0, 0, 0, 0);

  public MessageOverhead {
    if (perMessage < 0
        || replyPriming < 0
        || perToolCall < 0
        || perToolDefinition < 0
        || toolDefinitionsEnd < 0) {
      throw new IllegalArgumentException("overheads must be >= 0: " + this);
    }
  }
}
