package dev.compactor.testkit.model;

import java.util.Optional;

/** The provider wire formats {@link FakeModelServer} speaks, each at its documented path. */
public enum WireFormat {
  /** OpenAI Chat Completions: {@code POST …/chat/completions}. */
  CHAT_COMPLETIONS("/chat/completions"),
  /** OpenAI Responses: {@code POST …/responses}. */
  RESPONSES("/responses"),
  /** Anthropic Messages: {@code POST …/messages}. */
  ANTHROPIC_MESSAGES("/messages");

  private final String pathSuffix;

  WireFormat(String pathSuffix) {
    this.pathSuffix = pathSuffix;
  }

  /** The end of the request path that selects this format, e.g. {@code /chat/completions}. */
  public String pathSuffix() {
    return pathSuffix;
  }

  /** The format a request path asks for ({@code /v1/responses} → {@link #RESPONSES}), if any. */
  public static Optional<WireFormat> ofPath(String path) {
    for (WireFormat f : values()) {
      if (path.endsWith(f.pathSuffix)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }
}
