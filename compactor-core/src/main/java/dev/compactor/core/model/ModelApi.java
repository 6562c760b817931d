package dev.compactor.core.model;

import java.util.Locale;

/**
 * The wire API a {@link ChatModel} speaks. Reported to callers (the chat task's {@code
 * _gpt_chat_details.api}) and used to decide which provider-side compaction a request may ask for:
 * OpenAI compaction needs {@link #RESPONSES}, Anthropic context editing and compaction need {@link
 * #ANTHROPIC_MESSAGES}.
 */
public enum ModelApi {
  /** OpenAI Responses API, {@code POST /v1/responses}. */
  RESPONSES("responses"),
  /**
   * OpenAI Chat Completions, {@code POST /v1/chat/completions}, also any OpenAI-compatible server.
   */
  CHAT_COMPLETIONS("chat_completions"),
  /** Anthropic Messages API, {@code POST /v1/messages}. */
  ANTHROPIC_MESSAGES("anthropic_messages");

  private final String wireName;

  ModelApi(String wireName) {
    this.wireName = wireName;
  }

  /** {@code responses}, {@code chat_completions} or {@code anthropic_messages}. */
  public String wireName() {
    return wireName;
  }

  /**
   * Parses a wire name ({@code chat_completions}) or constant name ({@code CHAT_COMPLETIONS}),
   * case-insensitively; {@code -} may stand for {@code _}.
   *
   * @throws IllegalArgumentException naming the value when it is none of them
   */
  public static ModelApi parse(String value) {
    if (value != null) {
      String v = value.trim().toLowerCase(Locale.ROOT).replace('-', '_');
      for (ModelApi api : values()) {
        if (api.wireName.equals(v)) {
          return api;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown model API \""
            + value
            + "\" (expected responses, chat_completions or anthropic_messages)");
  }
}
