package dev.compactor.models.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.RequestExtension;
import dev.compactor.core.model.StreamListener;
import dev.compactor.models.AnthropicContextManagement;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ModelProvider;
import dev.compactor.models.ResponsesCompaction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Base of the HTTP clients: provider, model, API, settings, and one request path for every API: a
 * subclass names its endpoint, builds headers and body, and reads a reply and a stream; {@link
 * #chat} and {@link #stream} post them through the shared transport (retries, error mapping, key
 * redaction). Subclasses are immutable and thread-safe.
 */
public abstract class HttpChatModel implements ChatModel {
  private final ClientSetup setup;
  private final ModelApi api;

  /**
   * Resolves the client's settings (base URL, key, headers, transport) from {@code options}.
   *
   * @param mappers makes the provider's error mapper from the provider id and the secrets to redact
   * @param api the API this client speaks
   * @throws IllegalArgumentException for a blank model
   * @throws dev.compactor.core.catalog.InvalidSettingException when the base URL is not an http(s)
   *     URL or missing
   * @throws dev.compactor.core.CompactorException when the provider's own endpoint needs a key and
   *     none is set
   */
  protected HttpChatModel(
      ModelProvider provider,
      String model,
      ChatModelOptions options,
      BiFunction<String, List<String>, ErrorMapper> mappers,
      ModelApi api) {
    this.setup = ClientSetup.resolve(provider, model, options, mappers);
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

  /** The path of the API's endpoint under the base URL, e.g. {@code /chat/completions}. */
  protected abstract String path();

  /** The headers of {@code request} besides the configured extra headers. */
  protected abstract Map<String, String> ownHeaders(ChatRequest request);

  /**
   * The JSON body of {@code request} for {@code model}, whose extensions {@link #checkExtensions}
   * accepted.
   */
  protected abstract ObjectNode body(ChatRequest request, String model, boolean stream);

  /** The response read from a non-streaming reply. */
  protected abstract ChatResponse response(JsonNode root, ChatRequest request, String model);

  /** A new reader of the event stream of one attempt. */
  protected abstract StreamSession session(
      ChatRequest request, String model, StreamListener listener);

  @Override
  public ChatResponse chat(ChatRequest request) {
    String model = modelFor(request);
    JsonNode root =
        postJson(path(), headers(ownHeaders(request)), checkedBody(request, model, false), model);
    return response(root, request, model);
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener) {
    Objects.requireNonNull(listener, "listener");
    String model = modelFor(request);
    return streamed(
        path(),
        headers(ownHeaders(request)),
        checkedBody(request, model, true),
        model,
        listener,
        () -> session(request, model, listener));
  }

  /** The JSON body this client would send for {@code request} (for tests and debugging). */
  public ObjectNode body(ChatRequest request, boolean stream) {
    return checkedBody(request, modelFor(request), stream);
  }

  /** The body of {@code request}, once {@link #checkExtensions} accepted its extensions. */
  private ObjectNode checkedBody(ChatRequest request, String model, boolean stream) {
    checkExtensions(request, model);
    return body(request, model, stream);
  }

  /** The API key, or null when the endpoint needs none. */
  protected String apiKey() {
    return setup.apiKey();
  }

  /**
   * Posts a non-streaming JSON request to {@code path} under the base URL through the shared
   * transport (retries, error mapping, key redaction) and returns the reply body.
   */
  protected JsonNode postJson(
      String path, Map<String, String> headers, JsonNode body, String model) {
    return setup.transport().postJson(setup.endpoint(path), headers, body, model);
  }

  /** {@code Authorization: Bearer <key>} when there is a key (the OpenAI-style APIs). */
  protected Map<String, String> bearerAuthorization() {
    Map<String, String> h = new LinkedHashMap<>();
    if (setup.apiKey() != null) {
      h.put("Authorization", "Bearer " + setup.apiKey());
    }
    return h;
  }

  /**
   * {@code provider}, checked to serve an OpenAI-style API here (every provider but Anthropic).
   *
   * @param api the API's name for the error, e.g. {@code "Chat Completions"}
   */
  protected static ModelProvider notAnthropic(ModelProvider provider, String api) {
    Objects.requireNonNull(provider, "provider");
    if (provider == ModelProvider.ANTHROPIC) {
      throw new IllegalArgumentException("Anthropic does not serve " + api + " here");
    }
    return provider;
  }

  /**
   * Rejects a request carrying an extension this client's API does not send: the other APIs'
   * compaction extensions with the API they need, any other with the extensions honoured here.
   *
   * @throws IllegalArgumentException naming the extension
   */
  protected final void checkExtensions(ChatRequest request, String model) {
    if (api != ModelApi.RESPONSES && request.extension(ResponsesCompaction.class).isPresent()) {
      throw new IllegalArgumentException(
          api == ModelApi.ANTHROPIC_MESSAGES
              ? "ResponsesCompaction (compactThreshold) is the OpenAI Responses API's compaction;"
                  + " for "
                  + provider()
                  + "/"
                  + model
                  + " use AnthropicContextManagement with a Compact edit"
              : "compactThreshold needs the OpenAI Responses API; "
                  + provider()
                  + "/"
                  + model
                  + " uses "
                  + api.wireName());
    }
    if (api != ModelApi.ANTHROPIC_MESSAGES
        && request.extension(AnthropicContextManagement.class).isPresent()) {
      throw new IllegalArgumentException(
          "Anthropic context management needs the Anthropic Messages API, not " + api.wireName());
    }
    Set<Class<? extends RequestExtension>> honoured =
        switch (api) {
          case RESPONSES -> Set.of(ResponsesCompaction.class);
          case ANTHROPIC_MESSAGES -> Set.of(AnthropicContextManagement.class);
          case CHAT_COMPLETIONS -> Set.of();
        };
    Requests.onlyExtensions(
        request, provider() + "/" + model + " (" + api.wireName() + ")", honoured);
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

  /** The error mapper of this client's provider, for its response readers and stream sessions. */
  public ErrorMapper errorMapper() {
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
