package dev.compactor.models.anthropic;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ModelException;
import dev.compactor.models.internal.ErrorClassifier;
import dev.compactor.models.internal.ErrorMapper;
import dev.compactor.models.internal.Redactor;
import dev.compactor.wire.error.ErrorBodies;
import dev.compactor.wire.error.ErrorFields;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;

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
final class AnthropicErrorMapper implements ErrorMapper {
  private final Redactor redactor;

  /**
   * @param secrets values to redact (the API key)
   */
  public AnthropicErrorMapper(Collection<String> secrets) {
    this.redactor = new Redactor(Objects.requireNonNull(secrets, "secrets"));
  }

  @Override
  public String provider() {
    return "anthropic";
  }

  @Override
  public Redactor redactor() {
    return redactor;
  }

  @Override
  public ModelException fromHttp(
      int status, String body, Duration retryAfter, String model, Message partial) {
    return ErrorClassifier.classify(this, status, fields(body), body, retryAfter, model, partial);
  }

  @Override
  public ModelException fromStreamEvent(String eventJson, String model, Message partial) {
    return ErrorClassifier.classify(this, 200, fields(eventJson), eventJson, null, model, partial);
  }

  static ErrorFields fields(String body) {
    return ErrorBodies.anthropic(body);
  }
}
