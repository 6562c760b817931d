package dev.compactor.models;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelException;
import dev.compactor.models.internal.ErrorClassifier;
import dev.compactor.models.internal.ErrorMapper;
import dev.compactor.models.internal.Redactor;
import dev.compactor.wire.error.ErrorBodies;
import java.time.Duration;
import java.util.Objects;

/**
 * A provider's error answer read as the clients of this module read it, for code that talks to a
 * provider itself (the compacting proxy): the model exception it means, and whether it says that
 * the prompt does not fit the context window. Bodies are read as Anthropic error bodies for the
 * provider {@code anthropic} and as OpenAI-style bodies (also llama.cpp's, vLLM's) otherwise.
 * Messages keep the shapes of secrets out ({@link Redactor#shapesOnly()}). Stateless.
 */
public final class ProviderErrors {
  private ProviderErrors() {}

  /**
   * The exception an error answer means.
   *
   * @param provider {@code openai}, {@code anthropic} or another provider name
   * @param status the HTTP status (200 for an error event inside a stream)
   * @param body the response body, possibly empty or not JSON
   * @param model the model the request named, or null
   */
  public static ModelException classify(String provider, int status, String body, String model) {
    Objects.requireNonNull(provider, "provider");
    String text = body == null ? "" : body;
    boolean anthropic = provider.equals("anthropic");
    return ErrorClassifier.classify(
        mapper(provider),
        status,
        anthropic ? ErrorBodies.anthropic(text) : ErrorBodies.openAi(text),
        text,
        null,
        model,
        null);
  }

  /** Whether an error answer says the prompt does not fit the model's context window. */
  public static boolean isContextOverflow(String provider, int status, String body) {
    return classify(provider, status, body, null) instanceof ContextOverflowException;
  }

  private static ErrorMapper mapper(String provider) {
    Redactor redactor = Redactor.shapesOnly();
    return new ErrorMapper() {
      @Override
      public ModelException fromHttp(
          int status, String body, Duration retryAfter, String model, Message partial) {
        return ErrorClassifier.classify(
            this, status, ErrorBodies.openAi(body), body, retryAfter, model, partial);
      }

      @Override
      public ModelException fromStreamEvent(String eventJson, String model, Message partial) {
        return ErrorClassifier.classify(
            this, 200, ErrorBodies.openAi(eventJson), eventJson, null, model, partial);
      }

      @Override
      public String provider() {
        return provider;
      }

      @Override
      public Redactor redactor() {
        return redactor;
      }
    };
  }
}
