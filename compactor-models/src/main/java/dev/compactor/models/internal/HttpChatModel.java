package dev.compactor.models.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.StreamListener;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Base of the HTTP clients: provider, model, API, settings, and the checks every request passes.
 * Subclasses are immutable and thread-safe.
 */
public abstract class HttpChatModel implements ChatModel {
  protected final ClientSetup setup;
  private final ModelApi api;

  protected HttpChatModel(ClientSetup setup, ModelApi api) {
    this.setup = setup;
    this.api = api;
  }

  @Override
  public String provider() {
    return setup.provider().id();
  }

  @Override
  public String model() {
    return setup.model();
  }

  @Override
  public ModelApi api() {
    return api;
  }

  /** The base URL requests go to. */
  public String baseUrl() {
    return setup.baseUri().toString();
  }

  /** The model a request goes to. */
  protected String modelFor(ChatRequest request) {
    return request.model() != null ? request.model() : setup.model();
  }

  /**
   * Posts a streaming request to {@code path}, reads the stream with sessions from {@code sessions}
   * (one per attempt), tells the listener the response is complete and returns it.
   */
  protected <S extends StreamSession> ChatResponse streamed(
      String path,
      Map<String, String> headers,
      JsonNode body,
      String model,
      StreamListener listener,
      Supplier<S> sessions) {
    S s = setup.transport().postStream(setup.endpoint(path), headers, body, model, sessions);
    ChatResponse r = s.response();
    listener.onComplete(r);
    return r;
  }

  /** The error mapper of this client's provider. */
  protected ErrorMapper mapper() {
    return setup.transport().mapper();
  }

  /** The configured extra headers plus {@code own}, values of the same name joined with commas. */
  protected Map<String, String> headers(Map<String, String> own) {
    Map<String, String> out = new LinkedHashMap<>(own);
    setup
        .headers()
        .forEach(
            (name, value) -> {
              String existing = null;
              for (String k : out.keySet()) {
                if (k.equalsIgnoreCase(name)) {
                  existing = k;
                }
              }
              if (existing == null) {
                out.put(name, value);
              } else if (existing.equalsIgnoreCase("anthropic-beta")) {
                out.put(existing, out.get(existing) + "," + value);
              } else {
                out.put(existing, value);
              }
            });
    return out;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + "["
        + provider()
        + "/"
        + model()
        + " via "
        + api.wireName()
        + " at "
        + baseUrl()
        + "]";
  }
}
