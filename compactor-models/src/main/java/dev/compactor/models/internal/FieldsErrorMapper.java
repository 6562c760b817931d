package dev.compactor.models.internal;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ModelException;
import dev.compactor.wire.error.ErrorFields;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.function.Function;

/**
 * An {@link ErrorMapper} that reads a provider's error shape into {@link ErrorFields} and
 * classifies them by the shared rules of {@link ErrorClassifier}, for HTTP bodies and stream events
 * alike; a provider's mapper only says how its bodies are read. Secrets are redacted. Immutable,
 * thread-safe.
 */
public abstract class FieldsErrorMapper implements ErrorMapper {
  private final String provider;
  private final Redactor redactor;
  private final Function<String, ErrorFields> fields;

  /**
   * @param provider provider name for exceptions ({@code anthropic}, {@code openai}, {@code
   *     ollama}, …)
   * @param secrets values to redact (the API key)
   * @param fields reads an error body or event (any text, possibly not JSON) into its fields
   */
  protected FieldsErrorMapper(
      String provider, Collection<String> secrets, Function<String, ErrorFields> fields) {
    this.provider = Objects.requireNonNull(provider, "provider");
    this.redactor = new Redactor(Objects.requireNonNull(secrets, "secrets"));
    this.fields = Objects.requireNonNull(fields, "fields");
  }

  @Override
  public final String provider() {
    return provider;
  }

  @Override
  public final Redactor redactor() {
    return redactor;
  }

  @Override
  public final ModelException fromHttp(
      int status, String body, Duration retryAfter, String model, Message partial) {
    return ErrorClassifier.classify(
        this, status, fields.apply(body), body, retryAfter, model, partial);
  }

  @Override
  public final ModelException fromStreamEvent(String eventJson, String model, Message partial) {
    return ErrorClassifier.classify(
        this, 200, fields.apply(eventJson), eventJson, null, model, partial);
  }
}
