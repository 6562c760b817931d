package dev.compactor.core.compaction.summary;

import dev.compactor.core.Bounds;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A {@link Summarizer} that asks a {@link ChatModel} for the checkpoint and reads its answer with
 * {@link Checkpoint#parse}.
 *
 * <p><b>Prompt.</b> A system message asks for markdown with the sections {@code ## Objective},
 * {@code ## Key Decisions}, {@code ## Current State}, {@code ## Open Items} and {@code ## Context
 * Files} (lines {@code - `path` — reason}), identifiers and paths kept exactly; the instructions,
 * when given, are appended as {@code "\n\nAdditional instructions:\n…"}. A user message carries the
 * previous checkpoint (to carry forward: keep what is still true, update what changed) and the
 * messages to summarize as a plain transcript — roles, tool calls with their arguments and tool
 * results — so the model summarizes it rather than continuing it. Reasoning blocks are left out.
 *
 * <p><b>Bounds.</b> The input is bounded to the summarizer model's window: {@code window − output
 * limit − 4,000 − prompt} tokens. Tool results and system messages above 2,000 tokens are clipped
 * to their first two thirds and last third around {@code [... N characters omitted ...]}; when the
 * transcript is still too long, the oldest messages are left out, with a note saying how many. The
 * output is capped at 8,192 tokens. For small windows (local models) the output limit and the
 * reserve shrink to a quarter and an eighth of the window.
 *
 * <p><b>Free text.</b> {@link #summarizeText} sends the caller's instructions and the messages as a
 * numbered transcript (see {@link #textRequest}), unbounded by the window, and returns the answer
 * as written with the call's usage.
 *
 * <p><b>Failure.</b> A model error, empty output, or output without a recognisable checkpoint
 * section throws {@link SummarizationException} — the automatic policy latches to trim-only on it.
 * Output cut at the output limit is kept, with a note in the current state.
 *
 * <p>Immutable; thread-safe when the model is (every {@code compactor-models} client is).
 *
 * <pre>{@code
 * ChatModel model = ChatModels.create("openai/gpt-4o-mini", ChatModelOptions.defaults());
 * Summarizer s = ModelSummarizer.builder(model).build(); // window from the model catalog
 * ContextProvider summarize = new SummarizeProvider(s);
 * }</pre>
 */
public final class ModelSummarizer implements Summarizer {
  /** Output limit of the summary call. */
  public static final int DEFAULT_MAX_OUTPUT_TOKENS = 8192;

  /** Tokens kept free of the window besides the output and the prompt. */
  public static final int DEFAULT_RESERVE_TOKENS = 4000;

  /** Tool results and system messages above this many tokens are clipped. */
  public static final int DEFAULT_CLIP_TOKENS = 2000;

  /** Longest text of one message in a free-text summary's transcript; longer ones are clipped. */
  public static final int TEXT_CLIP_CHARS = 8_000;

  /** The instructions of the checkpoint prompt (the system message), before any additions. */
  public static final String PROMPT =
      """
      You are summarizing part of a conversation between a user and an AI assistant, including \
      the assistant's tool calls and their results, so that the work can continue from your \
      summary alone. The messages you summarize will be replaced by your checkpoint.

      Write the checkpoint in markdown with exactly these sections, in this order:

      ## Objective
      What the user wants overall, with their requests (quote short requests verbatim).

      ## Key Decisions
      - One decision or constraint per bullet: what was decided and why, and what the user \
      required or ruled out.

      ## Current State
      Where the work stands: what is done, what is in progress, the latest results of commands \
      and tests, and errors that are still open.

      ## Open Items
      - One remaining task or unanswered question per bullet, the next step first.

      ## Context Files
      - `path` — why it must be read again to continue (one file per bullet)

      Write "(none)" under a section with nothing to say. Keep identifiers, file paths, commands, \
      error messages and numbers exactly as written. Do not invent anything that is not in the \
      messages. Output only the checkpoint.""";

  private static final Pattern THINK = Pattern.compile("(?s)<think>.*?</think>");
  private static final Pattern HEADING = Pattern.compile("(?m)^\\s{0,3}#{1,2}\\s+\\S");
  private static final Pattern FENCE_OPEN = Pattern.compile("^```[A-Za-z0-9_-]*\\s*\\n");
  private static final Pattern FENCE_CLOSE = Pattern.compile("\\n```\\s*$");

  /** Tokens kept for the "oldest messages left out" note. */
  private static final int NOTE_TOKENS = 60;

  private final ChatModel model;
  private final long contextWindow;
  private final int maxOutputTokens;
  private final int reserveTokens;
  private final int clipTokens;
  private final TokenCounter counter;

  private ModelSummarizer(Builder b) {
    this.model = b.model;
    String id = b.model.provider() + "/" + b.model.model();
    ModelInfo info = b.contextWindow == null ? ModelCatalog.builtIn().lookup(id) : null;
    this.contextWindow = b.contextWindow != null ? b.contextWindow : info.contextWindow();
    this.counter = b.counter != null ? b.counter : TokenCounters.forModel(id);
    // Small windows (local models): a quarter for the output, an eighth in reserve.
    this.maxOutputTokens =
        (int) Math.max(1, Math.min(b.maxOutputTokens, Math.max(256, contextWindow / 4)));
    this.reserveTokens = (int) Math.min(b.reserveTokens, contextWindow / 8);
    this.clipTokens = b.clipTokens;
  }

  /** A builder for a summarizer that calls {@code model}. */
  public static Builder builder(ChatModel model) {
    return new Builder(model);
  }

  @Override
  public String name() {
    return model.provider() + "/" + model.model();
  }

  /** The summarizer model's context window in tokens. */
  public long contextWindow() {
    return contextWindow;
  }

  /** The output limit sent with each request. */
  public int maxOutputTokens() {
    return maxOutputTokens;
  }

  /**
   * Asks the model for a checkpoint of {@code covered}.
   *
   * @throws SummarizationException when the model fails, answers with nothing, or answers without
   *     any checkpoint section, or when the window cannot hold even the prompt
   */
  @Override
  public Checkpoint summarize(List<Message> covered, Checkpoint previous, String instructions) {
    ChatResponse r = call(request(covered, previous, instructions));
    String text = clean(r.text());
    if (text.isBlank()) {
      throw new SummarizationException(
          "summarizer "
              + name()
              + " returned no text (finish reason "
              + r.finishReason().name().toLowerCase(java.util.Locale.ROOT)
              + ")");
    }
    if (!HEADING.matcher(text).find()) {
      throw new SummarizationException(
          "summarizer " + name() + " returned no checkpoint sections: \"" + preview(text) + "\"");
    }
    Checkpoint cp = Checkpoint.parse(text);
    if (cp.isEmpty()) {
      throw new SummarizationException(
          "summarizer " + name() + " returned an empty checkpoint: \"" + preview(text) + "\"");
    }
    if (r.finishReason() == FinishReason.LENGTH) {
      String note = "[summary cut at the output limit of " + maxOutputTokens + " tokens]";
      cp =
          new Checkpoint(
              cp.objective(),
              cp.decisions(),
              cp.currentState().isEmpty() ? note : cp.currentState() + "\n\n" + note,
              cp.openItems(),
              cp.filesToReload(),
              cp.identifiers());
    }
    return cp;
  }

  /**
   * Asks the model for a free-text summary of {@code covered}: {@code instructions} as the system
   * message, the messages as a numbered transcript (see {@link #textRequest}) as the user message.
   * The answer is returned as written, stripped, also when it is empty.
   *
   * @throws SummarizationException when the model call fails
   */
  @Override
  public SummaryText summarizeText(
      List<Message> covered, String instructions, int maxOutputTokens) {
    ChatResponse r = call(textRequest(covered, instructions, maxOutputTokens));
    return new SummaryText(r.text().strip(), r.usage(), r.finishReason());
  }

  /**
   * The request {@link #summarizeText} sends: {@code instructions} as the system message and, as
   * the user message, {@code "Summarize this conversation excerpt (N messages):"} followed by one
   * entry per message — {@code [i] role:} (or {@code [i] tool result (call id):}), its text and
   * {@code -> tool call name (id): arguments} lines — with texts and arguments longer than {@value
   * #TEXT_CLIP_CHARS} characters clipped to their first two thirds and last third.
   */
  public static ChatRequest textRequest(
      List<Message> covered, String instructions, int maxOutputTokens) {
    Objects.requireNonNull(covered, "covered");
    Objects.requireNonNull(instructions, "instructions");
    Bounds.atLeast(1, maxOutputTokens, "maxOutputTokens");
    return ChatRequest.builder()
        .messages(List.of(Message.system(instructions), Message.user(transcript(covered))))
        .maxOutputTokens(maxOutputTokens)
        .build();
  }

  /** The user message of {@link #textRequest}: the covered messages as a numbered transcript. */
  public static String transcript(List<Message> covered) {
    StringBuilder sb = new StringBuilder();
    sb.append("Summarize this conversation excerpt (")
        .append(covered.size())
        .append(" messages):\n");
    int i = 1;
    for (Message m : covered) {
      sb.append("\n[").append(i++).append("] ");
      if (m.isToolResult()) {
        sb.append("tool result");
        if (m.toolCallId() != null) {
          sb.append(" (").append(m.toolCallId()).append(')');
        }
      } else {
        sb.append(m.role().wireName());
      }
      sb.append(":\n");
      if (!m.content().isEmpty()) {
        sb.append(clipChars(m.content(), TEXT_CLIP_CHARS)).append('\n');
      }
      for (ToolCall c : m.toolCalls()) {
        sb.append("-> tool call ")
            .append(c.name())
            .append(" (")
            .append(c.id())
            .append("): ")
            .append(clipChars(c.arguments(), TEXT_CLIP_CHARS))
            .append('\n');
      }
    }
    return sb.toString();
  }

  /** The model call of both kinds of summary, its failure as a {@link SummarizationException}. */
  private ChatResponse call(ChatRequest request) {
    try {
      return model.chat(request);
    } catch (RuntimeException e) {
      throw new SummarizationException(
          "summarizer " + name() + " failed: " + SummarizationException.describe(e), e);
    }
  }

  /**
   * The request {@link #summarize} sends (for tests and debugging).
   *
   * @throws SummarizationException when the window cannot hold even the prompt
   */
  public ChatRequest request(List<Message> covered, Checkpoint previous, String instructions) {
    Objects.requireNonNull(covered, "covered");
    String system = PROMPT;
    if (instructions != null && !instructions.isBlank()) {
      system += "\n\nAdditional instructions:\n" + instructions.strip();
    }
    StringBuilder head = new StringBuilder();
    if (previous != null && !previous.isEmpty()) {
      head.append(
              "A previous checkpoint covers the conversation before these messages. Carry it"
                  + " forward: keep what is still true, update what changed, drop what is"
                  + " resolved.\n\n<previous-checkpoint>\n")
          .append(previous.render())
          .append("\n</previous-checkpoint>\n\n");
    }
    List<Message> visible = covered.stream().filter(m -> !m.uiOnly()).toList();
    head.append("The conversation to summarize (")
        .append(visible.size())
        .append(visible.size() == 1 ? " message" : " messages")
        .append(", oldest first):\n\n<transcript>\n");
    String tail = "</transcript>";

    long frame =
        counter.countText(system) + counter.countText(head.toString()) + counter.countText(tail);
    long available = contextWindow - maxOutputTokens - reserveTokens - frame - NOTE_TOKENS;
    if (available <= 0) {
      throw new SummarizationException(
          "summarizer "
              + name()
              + ": its context window of "
              + contextWindow
              + " tokens cannot hold the checkpoint prompt ("
              + frame
              + " tokens) with "
              + maxOutputTokens
              + " tokens of output");
    }
    List<String> blocks = render(visible);
    // Newest first, as many as fit; the newest one is clipped to fit when it alone is too long.
    int first = blocks.size();
    long used = 0;
    String clippedNewest = null;
    for (int i = blocks.size() - 1; i >= 0; i--) {
      long t = counter.countText(blocks.get(i));
      if (used + t > available) {
        if (i == blocks.size() - 1) {
          clippedNewest = clip(blocks.get(i), (int) Math.min(Integer.MAX_VALUE, available));
          first = i;
        }
        break;
      }
      used += t;
      first = i;
    }
    StringBuilder user = new StringBuilder(head);
    if (first > 0) {
      user.append("[Note: the ")
          .append(first)
          .append(first == 1 ? " oldest message was" : " oldest messages were")
          .append(" left out to fit the summarizer's context window.]\n\n");
    }
    for (int i = first; i < blocks.size(); i++) {
      user.append(i == blocks.size() - 1 && clippedNewest != null ? clippedNewest : blocks.get(i));
    }
    user.append(tail);
    return ChatRequest.builder()
        .messages(List.of(Message.system(system), Message.user(user.toString())))
        .maxOutputTokens(maxOutputTokens)
        .build();
  }

  /** One text block per message, with long tool results and system messages clipped. */
  private List<String> render(List<Message> messages) {
    Map<String, ToolCall> calls = new HashMap<>();
    List<String> out = new ArrayList<>(messages.size());
    for (Message m : messages) {
      StringBuilder sb = new StringBuilder();
      switch (m.role()) {
        case TOOL -> {
          ToolCall c = m.toolCallId() == null ? null : calls.get(m.toolCallId());
          sb.append("[tool result")
              .append(c != null ? " of " + c.name() : "")
              .append(m.toolCallId() != null ? " (" + m.toolCallId() + ")" : "")
              .append("]\n")
              .append(clip(m.content(), clipTokens));
        }
        case SYSTEM -> sb.append("[system]\n").append(clip(m.content(), clipTokens));
        default -> {
          sb.append('[').append(m.role().wireName()).append("]\n").append(m.content());
          for (ToolCall c : m.toolCalls()) {
            calls.put(c.id(), c);
            if (sb.charAt(sb.length() - 1) != '\n') {
              sb.append('\n');
            }
            sb.append("[tool call ")
                .append(c.name())
                .append(" (")
                .append(c.id())
                .append(")] ")
                .append(clip(c.arguments(), clipTokens));
          }
        }
      }
      if (m.role() == Role.ASSISTANT && m.content().isEmpty() && !m.hasToolCalls()) {
        continue;
      }
      out.add(sb.append("\n\n").toString());
    }
    return out;
  }

  /**
   * {@code text} cut to about {@code maxTokens}: the first two thirds and the last third of the
   * characters kept, around {@code [... N characters omitted ...]}.
   */
  String clip(String text, int maxTokens) {
    int tokens = counter.countText(text);
    if (tokens <= maxTokens) {
      return text;
    }
    int keep = (int) Math.max(0, (long) text.length() * Math.max(0, maxTokens - 20) / tokens);
    return cutMiddle(text, keep);
  }

  /**
   * {@code text} cut to {@code maxChars} characters when longer: the first two thirds and the last
   * third kept, around {@code [... N characters omitted ...]}.
   */
  static String clipChars(String text, int maxChars) {
    return text.length() <= maxChars ? text : cutMiddle(text, maxChars);
  }

  /** {@code text} with all but {@code keep} characters cut from its middle, said where. */
  private static String cutMiddle(String text, int keep) {
    int headEnd = safe(text, keep * 2 / 3);
    int tailStart = safe(text, text.length() - (keep - keep * 2 / 3));
    if (tailStart < headEnd) {
      tailStart = headEnd;
    }
    int omitted = tailStart - headEnd;
    return text.substring(0, headEnd)
        + "\n[... "
        + omitted
        + " characters omitted ...]\n"
        + text.substring(tailStart);
  }

  /** An index not splitting a surrogate pair. */
  private static int safe(String s, int i) {
    int j = Math.max(0, Math.min(s.length(), i));
    if (j > 0 && j < s.length() && Character.isLowSurrogate(s.charAt(j))) {
      j--;
    }
    return j;
  }

  /** Drops {@code <think>} blocks and a code fence around the whole answer. */
  static String clean(String text) {
    String t = THINK.matcher(text == null ? "" : text).replaceAll("").strip();
    if (t.startsWith("```")) {
      java.util.regex.Matcher open = FENCE_OPEN.matcher(t);
      if (open.find()) {
        t = FENCE_CLOSE.matcher(t.substring(open.end())).replaceFirst("").strip();
      }
    }
    return t;
  }

  private static String preview(String text) {
    String one = text.strip().replaceAll("\\s+", " ");
    return one.length() > 120 ? one.substring(0, 120) + "…" : one;
  }

  /** Builder of {@link ModelSummarizer}. */
  public static final class Builder {
    private final ChatModel model;
    private Long contextWindow;
    private int maxOutputTokens = DEFAULT_MAX_OUTPUT_TOKENS;
    private int reserveTokens = DEFAULT_RESERVE_TOKENS;
    private int clipTokens = DEFAULT_CLIP_TOKENS;
    private TokenCounter counter;

    private Builder(ChatModel model) {
      this.model = Objects.requireNonNull(model, "model");
    }

    /** The summarizer model's window (default: from the built-in model catalog). */
    public Builder contextWindow(long tokens) {
      Bounds.atLeast(1, tokens, "contextWindow");
      this.contextWindow = tokens;
      return this;
    }

    /** The output limit (default {@value #DEFAULT_MAX_OUTPUT_TOKENS}). */
    public Builder maxOutputTokens(int tokens) {
      Bounds.atLeast(1, tokens, "maxOutputTokens");
      this.maxOutputTokens = tokens;
      return this;
    }

    /** Tokens kept free besides output and prompt (default {@value #DEFAULT_RESERVE_TOKENS}). */
    public Builder reserveTokens(int tokens) {
      Bounds.atLeast(0, tokens, "reserveTokens");
      this.reserveTokens = tokens;
      return this;
    }

    /** Tool results and system messages above this are clipped (default 2,000). */
    public Builder clipTokens(int tokens) {
      Bounds.atLeast(100, tokens, "clipTokens");
      this.clipTokens = tokens;
      return this;
    }

    /** How the input is measured (default: the counter of the summarizer's model). */
    public Builder counter(TokenCounter counter) {
      this.counter = Objects.requireNonNull(counter, "counter");
      return this;
    }

    public ModelSummarizer build() {
      return new ModelSummarizer(this);
    }
  }
}
