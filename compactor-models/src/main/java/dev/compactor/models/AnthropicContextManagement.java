package dev.compactor.models;

import dev.compactor.core.Bounds;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.RequestExtension;
import java.util.List;
import java.util.Objects;

/**
 * Anthropic's server-side context management for one request: context editing ({@link
 * ClearToolUses}, {@link ClearThinking}; beta {@code context-management-2025-06-27}) and server
 * compaction ({@link Compact}; beta {@code compact-2026-01-12}). Sent as {@code
 * context_management.edits}, in the given order; the client adds the beta headers the edits need.
 * Null fields are left out of the request so the provider's defaults apply. A {@link
 * dev.compactor.core.model.ChatRequest} extension that only {@link
 * dev.compactor.models.anthropic.AnthropicMessagesModel} honours.
 *
 * <pre>{@code
 * var cm = new AnthropicContextManagement(List.of(
 *     ClearToolUses.defaults(),
 *     new Compact(120_000L, false, null)));
 * ChatRequest req = ChatRequest.builder().messages(history).extension(cm).build();
 * }</pre>
 *
 * @param edits at least one edit, at most one of each type
 */
public record AnthropicContextManagement(List<Edit> edits) implements RequestExtension {
  /** Beta header value for {@link ClearToolUses} and {@link ClearThinking}. */
  public static final String CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27";

  /** Beta header value for {@link Compact}. */
  public static final String COMPACT_BETA = "compact-2026-01-12";

  public AnthropicContextManagement {
    Objects.requireNonNull(edits, "edits");
    edits = List.copyOf(edits);
    if (edits.isEmpty()) {
      throw new IllegalArgumentException("Anthropic context management needs at least one edit");
    }
    if (edits.stream().map(Edit::type).distinct().count() != edits.size()) {
      throw new IllegalArgumentException(
          "Anthropic context management edits must have distinct types, got "
              + edits.stream().map(Edit::type).toList());
    }
  }

  /** Management with the given edits. */
  public static AnthropicContextManagement of(Edit... edits) {
    return new AnthropicContextManagement(List.of(edits));
  }

  /** The {@code anthropic-beta} values these edits need, in a stable order. */
  public List<String> betas() {
    boolean editing = edits.stream().anyMatch(e -> !(e instanceof Compact));
    boolean compact = edits.stream().anyMatch(e -> e instanceof Compact);
    if (editing && compact) {
      return List.of(CONTEXT_MANAGEMENT_BETA, COMPACT_BETA);
    }
    return List.of(editing ? CONTEXT_MANAGEMENT_BETA : COMPACT_BETA);
  }

  /** One context management edit. */
  public sealed interface Edit permits ClearToolUses, ClearThinking, Compact {
    /** The wire type, e.g. {@code clear_tool_uses_20250919}. */
    String type();
  }

  /** What a {@link ClearToolUses} trigger counts. */
  public enum TriggerUnit {
    INPUT_TOKENS("input_tokens"),
    TOOL_USES("tool_uses");

    private final String wireName;

    TriggerUnit(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }

  /**
   * When an edit fires: once the prompt reaches {@code value} of {@code unit}.
   *
   * @param unit what is counted, never null
   * @param value threshold, &gt; 0
   */
  public record Trigger(TriggerUnit unit, long value) {
    public Trigger {
      Objects.requireNonNull(unit, "trigger unit");
      Bounds.positive(value, "trigger value");
    }
  }

  /**
   * Clears old tool results ({@code clear_tool_uses_20250919}).
   *
   * @param trigger when to clear; null for the provider default (100,000 input tokens)
   * @param keepToolUses most recent tool uses kept; null for the default (3)
   * @param clearAtLeastInputTokens minimum input tokens each clearing must free, or null
   * @param excludeTools tool names never cleared; empty for none
   * @param clearToolInputs also clear the tool call inputs; null for the default (false)
   */
  public record ClearToolUses(
      Trigger trigger,
      Integer keepToolUses,
      Long clearAtLeastInputTokens,
      List<String> excludeTools,
      Boolean clearToolInputs)
      implements Edit {
    public ClearToolUses {
      excludeTools = excludeTools == null ? List.of() : List.copyOf(excludeTools);
      if (keepToolUses != null && keepToolUses < 0) {
        throw new IllegalArgumentException("keepToolUses must be >= 0, got " + keepToolUses);
      }
      if (clearAtLeastInputTokens != null && clearAtLeastInputTokens <= 0) {
        throw new IllegalArgumentException(
            "clearAtLeastInputTokens must be > 0, got " + clearAtLeastInputTokens);
      }
    }

    /** Clearing with every provider default. */
    public static ClearToolUses defaults() {
      return new ClearToolUses(null, null, null, List.of(), null);
    }

    @Override
    public String type() {
      return "clear_tool_uses_20250919";
    }
  }

  /**
   * Clears thinking blocks of earlier turns ({@code clear_thinking_20251015}).
   *
   * @param keepThinkingTurns most recent assistant turns whose thinking is kept, or null
   * @param keepAll keep all thinking ({@code keep: "all"}, best for prompt caching)
   */
  public record ClearThinking(Integer keepThinkingTurns, boolean keepAll) implements Edit {
    public ClearThinking {
      if (keepAll && keepThinkingTurns != null) {
        throw new IllegalArgumentException("ClearThinking: keepAll and keepThinkingTurns exclude");
      }
      if (keepThinkingTurns != null && keepThinkingTurns < 0) {
        throw new IllegalArgumentException(
            "keepThinkingTurns must be >= 0, got " + keepThinkingTurns);
      }
    }

    /** The provider default (keep the last turn's thinking). */
    public static ClearThinking defaults() {
      return new ClearThinking(null, false);
    }

    public static ClearThinking keepTurns(int turns) {
      return new ClearThinking(turns, false);
    }

    public static ClearThinking keepAllThinking() {
      return new ClearThinking(null, true);
    }

    @Override
    public String type() {
      return "clear_thinking_20251015";
    }
  }

  /**
   * Server-side compaction ({@code compact_20260112}): the provider summarises the conversation
   * when the prompt reaches the trigger and answers from the summary.
   *
   * @param triggerInputTokens input tokens at which to compact, &ge; 50,000; null for the default
   *     (150,000)
   * @param pauseAfterCompaction stop with {@link FinishReason#COMPACTION} after the summary; null
   *     for the default (false)
   * @param instructions summarisation prompt that replaces the provider's, or null
   */
  public record Compact(Long triggerInputTokens, Boolean pauseAfterCompaction, String instructions)
      implements Edit {
    /** The smallest trigger the provider accepts. */
    public static final long MIN_TRIGGER = 50_000;

    public Compact {
      if (triggerInputTokens != null && triggerInputTokens < MIN_TRIGGER) {
        throw new IllegalArgumentException(
            "Anthropic compaction trigger must be >= "
                + MIN_TRIGGER
                + " input tokens, got "
                + triggerInputTokens);
      }
    }

    /** Compaction with every provider default. */
    public static Compact defaults() {
      return new Compact(null, null, null);
    }

    @Override
    public String type() {
      return "compact_20260112";
    }
  }
}
