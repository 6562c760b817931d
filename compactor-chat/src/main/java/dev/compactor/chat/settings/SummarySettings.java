package dev.compactor.chat.settings;

import dev.compactor.core.Bounds;
import dev.compactor.core.message.Role;
import java.util.Objects;

/**
 * The effective summary compaction settings of a chat: every field resolved, defaults applied. See
 * {@code docs/chat-tasks.md} for the JSON shape.
 *
 * @param enabled whether summary compaction runs (default true once summary settings exist)
 * @param activation when it runs
 * @param messageSelection which messages it summarizes
 * @param summarization how the summary is made
 * @param injection how the summary is put back into the chat
 */
public record SummarySettings(
    boolean enabled,
    Activation activation,
    MessageSelection messageSelection,
    Summarization summarization,
    Injection injection) {

  /** Default {@code activation.message_count}. */
  public static final int DEFAULT_MESSAGE_COUNT = 100;

  /** Default {@code message_selection.keep_last_messages}. */
  public static final int DEFAULT_KEEP_LAST_MESSAGES = 10;

  /** Default {@code summarization.max_output_tokens}. */
  public static final int DEFAULT_MAX_OUTPUT_TOKENS = 1024;

  /** The placeholder {@code injection.template} must contain. */
  public static final String PLACEHOLDER = "{{summary}}";

  /** Default {@code injection.template}. */
  public static final String DEFAULT_TEMPLATE =
      "Summary of the earlier part of this conversation:\n\n" + PLACEHOLDER;

  /** Default {@code summarization.instructions}. */
  public static final String DEFAULT_INSTRUCTIONS =
      "You summarize the earlier part of a conversation so that it can continue without it. Keep"
          + " the user's goals and constraints (verbatim where they are exact), decisions made and"
          + " why, facts, names, numbers and identifiers that later messages may need, the results"
          + " of tool calls, and what is still open. Write plain prose or short lists, without"
          + " preamble.";

  /** Everything at its default, enabled. */
  public static final SummarySettings DEFAULTS =
      new SummarySettings(
          true,
          new Activation(DEFAULT_MESSAGE_COUNT, null),
          new MessageSelection(MainSystemMessage.EXCLUDE, DEFAULT_KEEP_LAST_MESSAGES),
          new Summarization(null, DEFAULT_INSTRUCTIONS, DEFAULT_MAX_OUTPUT_TOKENS),
          new Injection(Role.SYSTEM, DEFAULT_TEMPLATE));

  public SummarySettings {
    Objects.requireNonNull(activation, "activation");
    Objects.requireNonNull(messageSelection, "messageSelection");
    Objects.requireNonNull(summarization, "summarization");
    Objects.requireNonNull(injection, "injection");
  }

  /**
   * When summary compaction runs: whichever threshold is reached first.
   *
   * @param messageCount messages in the chat history at or above which it runs; null = off
   * @param tokenCount context tokens of the most recent model call (prompt plus completion) at or
   *     above which it runs; null = off
   */
  public record Activation(Integer messageCount, Long tokenCount) {
    public Activation {
      if (messageCount != null && messageCount < 1) {
        throw new IllegalArgumentException("message_count must be >= 1, got " + messageCount);
      }
      if (tokenCount != null && tokenCount < 1) {
        throw new IllegalArgumentException("token_count must be >= 1, got " + tokenCount);
      }
    }
  }

  /** Whether the chat's first message, when it is a system message, is summarized. */
  public enum MainSystemMessage {
    /** Kept in place, never summarized (the default). */
    EXCLUDE,
    /** Summarized like any other message. */
    INCLUDE
  }

  /**
   * Which messages are summarized.
   *
   * @param mainSystemMessage whether the main system message is summarized
   * @param keepLastMessages how many of the most recent messages stay verbatim; widened backwards
   *     so that a tool result is never separated from its call
   */
  public record MessageSelection(MainSystemMessage mainSystemMessage, int keepLastMessages) {
    public MessageSelection {
      Objects.requireNonNull(mainSystemMessage, "mainSystemMessage");
      Bounds.atLeast(0, keepLastMessages, "keep_last_messages");
    }
  }

  /**
   * How the summary is made.
   *
   * @param model {@code provider/model} of the summarizing model; null = the chat's model
   * @param instructions the summarizer's instructions
   * @param maxOutputTokens the summary's output limit
   */
  public record Summarization(String model, String instructions, int maxOutputTokens) {
    public Summarization {
      Objects.requireNonNull(instructions, "instructions");
      Bounds.atLeast(1, maxOutputTokens, "max_output_tokens");
    }
  }

  /**
   * How the summary enters the chat: one message of {@code role}, {@code template} with {@value
   * #PLACEHOLDER} replaced by the summary, placed after the main system message when that is kept,
   * else first.
   */
  public record Injection(Role role, String template) {
    public Injection {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(template, "template");
      if (role != Role.SYSTEM && role != Role.USER) {
        throw new IllegalArgumentException("injection role must be system or user, got " + role);
      }
      if (!template.contains(PLACEHOLDER)) {
        throw new IllegalArgumentException("template must contain " + PLACEHOLDER);
      }
    }

    /** The template with the summary in place of {@value #PLACEHOLDER}. */
    public String render(String summary) {
      return template.replace(PLACEHOLDER, summary);
    }
  }
}
