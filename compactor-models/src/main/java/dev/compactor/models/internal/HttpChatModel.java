package dev.compactor.models.internal;

import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ModelApi;
import java.util.LinkedHashMap;
import java.util.Map;

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
