package dev.compactor.server.proxy;

/**
 * What the proxy counts. Every label value is bounded and non-secret: an upstream name (configured,
 * or {@code openai} / {@code anthropic}), a wire API name, an action, a reason code, a status
 * class; never a tenant, a conversation id, a model name or content. Implementations are
 * thread-safe.
 */
public interface ProxyMetrics {
  /** Counts nothing. */
  ProxyMetrics NONE = new ProxyMetrics() {};

  /**
   * One answer relayed to the client.
   *
   * @param upstream the upstream's name
   * @param api the wire API ({@code chat_completions}, {@code anthropic_messages}) or {@code other}
   *     for the passed-through routes
   * @param action the {@code x-compactor-action} sent: none, masked, trimmed, summarized, reminded,
   *     recovered, passthrough
   * @param tokensBefore tokens of the conversation as the client sent it, or -1 (not read)
   * @param tokensAfter tokens of what the proxy sent, or -1
   */
  default void answered(
      String upstream, String api, String action, long tokensBefore, long tokensAfter) {}

  /** A request forwarded unread: {@code reason} is a code (see {@link #reasonCode}). */
  default void passthrough(String upstream, String reason) {}

  /**
   * The upstream failed: {@code kind} is {@code unreachable} (no answer) or {@code http_4xx} /
   * {@code http_5xx} (an error status relayed).
   */
  default void upstreamError(String upstream, String kind) {}

  /** The configured summary model failed and the extractive summarizer wrote the summary. */
  default void summaryFallback(String upstream) {}

  /** The retention sweep deleted {@code n} conversations. */
  default void retentionDeleted(int n) {}

  /** A bounded code for a passthrough reason (the header's text is free-form). */
  static String reasonCode(String reason) {
    if (reason == null) {
      return "other";
    }
    String r = reason.toLowerCase(java.util.Locale.ROOT);
    if (r.startsWith("not compacted on this route")) {
      return "route";
    }
    if (r.contains("previous_response_id")) {
      return "stateful";
    }
    if (r.contains("context_management")) {
      return "context_management";
    }
    if (r.contains("names no model")) {
      return "no_model";
    }
    if (r.startsWith("the proxy failed")) {
      return "proxy_failure";
    }
    if (r.contains("not a json object") || r.contains("not json")) {
      return "not_json";
    }
    return "unreadable";
  }
}
