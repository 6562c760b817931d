package dev.compactor.models.anthropic;

import dev.compactor.models.internal.FieldsErrorMapper;
import dev.compactor.wire.error.ErrorBodies;
import java.util.Collection;

/**
 * Maps Anthropic Messages API errors ({@code {"type":"error","error":{"type","message"}}}, as HTTP
 * bodies and as {@code error} stream events) to the model exception family: {@code
 * authentication_error}/{@code permission_error} (401/403) → {@link
 * dev.compactor.core.model.AuthenticationException}; "prompt is too long: N tokens > W maximum" and
 * "input length and `max_tokens` exceed context limit: N + M > W" → {@link
 * dev.compactor.core.model.ContextOverflowException} with the counts; {@code rate_limit_error}
 * (429), {@code api_error} (500), {@code overloaded_error} (529), also inside a stream → retryable;
 * {@code not_found_error} about a model (404) → {@link
 * dev.compactor.core.model.UnknownModelException}; other 4xx → non-retryable. Secrets are redacted.
 * Immutable, thread-safe.
 *
 * <pre>{@code
 * ModelException e = new AnthropicErrorMapper(List.of(key)).fromHttp(529, body, null, model, null);
 * }</pre>
 */
final class AnthropicErrorMapper extends FieldsErrorMapper {
  /**
   * @param secrets values to redact (the API key)
   */
  public AnthropicErrorMapper(Collection<String> secrets) {
    super("anthropic", secrets, ErrorBodies::anthropic);
  }
}
