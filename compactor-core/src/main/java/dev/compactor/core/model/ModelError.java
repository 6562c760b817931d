package dev.compactor.core.model;

import java.util.Objects;

/**
 * What a provider said when a call failed, as carried by {@link ModelException}.
 *
 * @param provider provider name ({@code openai}, {@code anthropic}, {@code ollama}, …), never null
 * @param httpStatus the HTTP status, 200 for an error that arrived inside a stream, 0 when no
 *     response arrived (timeout, connection failure)
 * @param type the provider's error type ({@code invalid_request_error}, {@code
 *     exceed_context_size_error}, …), or null
 * @param code the provider's error code ({@code context_length_exceeded}, {@code 400}, …), or null
 * @param bodyExcerpt the start of the response body (or stream event) with secrets redacted, never
 *     null (empty when there was none)
 */
public record ModelError(
    String provider, int httpStatus, String type, String code, String bodyExcerpt) {
  /** Longest body excerpt kept. */
  public static final int MAX_EXCERPT = 2000;

  public ModelError {
    Objects.requireNonNull(provider, "provider");
    bodyExcerpt = bodyExcerpt == null ? "" : bodyExcerpt;
    if (bodyExcerpt.length() > MAX_EXCERPT) {
      bodyExcerpt = bodyExcerpt.substring(0, MAX_EXCERPT) + "…";
    }
  }

  /** An error with only a provider and status. */
  public static ModelError of(String provider, int httpStatus) {
    return new ModelError(provider, httpStatus, null, null, "");
  }
}
