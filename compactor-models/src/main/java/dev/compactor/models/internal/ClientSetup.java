package dev.compactor.models.internal;

import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ModelProvider;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * A client's resolved settings: provider, model, base URL, key, transport. Immutable.
 *
 * @param provider the provider
 * @param model the default model name (without the provider prefix)
 * @param baseUri base URL without a trailing slash
 * @param apiKey the key, or null when the endpoint needs none
 * @param headers extra headers for every request
 * @param transport the HTTP transport with the provider's error mapper
 */
record ClientSetup(
    ModelProvider provider,
    String model,
    URI baseUri,
    String apiKey,
    Map<String, String> headers,
    HttpTransport transport) {

  @Override
  public String toString() {
    return "ClientSetup[" + provider + "/" + model + " at " + baseUri + "]";
  }

  /** {@code baseUri} + {@code path} ({@code path} starts with {@code /}). */
  public URI endpoint(String path) {
    return URI.create(baseUri + path);
  }

  /**
   * Resolves the settings of a client.
   *
   * @param mappers makes the provider's error mapper from the provider id and the secrets to redact
   * @throws InvalidSettingException when the base URL is not an http(s) URL or missing
   * @throws CompactorException when the provider's own endpoint needs a key and none is set
   */
  static ClientSetup resolve(
      ModelProvider provider,
      String model,
      ChatModelOptions options,
      BiFunction<String, List<String>, ErrorMapper> mappers) {
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(options, "options");
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("model name must not be blank");
    }
    Map<String, String> env = options.env();
    String url;
    String source;
    if (options.baseUrl() != null) {
      url = options.baseUrl();
      source = "ChatModelOptions.baseUrl";
    } else if (provider.baseUrlEnv() != null && notBlank(env.get(provider.baseUrlEnv()))) {
      url = env.get(provider.baseUrlEnv()).strip();
      source = provider.baseUrlEnv();
    } else {
      url = provider.defaultBaseUrl();
      source = "the " + provider.id() + " default";
    }
    if (url == null) {
      throw new InvalidSettingException(
          provider.id() + " base URL",
          "",
          "ChatModelOptions.baseUrl (--base-url)",
          "is required for " + provider.id() + " models, e.g. http://localhost:8000/v1");
    }
    URI base = parseBase(url, provider, source);
    boolean ownEndpoint =
        provider.defaultBaseUrl() != null && url.equals(provider.defaultBaseUrl());

    String key = options.apiKey();
    if (key == null && provider.keyEnv() != null && notBlank(env.get(provider.keyEnv()))) {
      key = env.get(provider.keyEnv()).strip();
    }
    if (key == null && provider.requiresKey() && ownEndpoint) {
      throw new CompactorException(
          "no API key for "
              + provider.id()
              + ": set "
              + provider.keyEnv()
              + " or ChatModelOptions.apiKey");
    }
    List<String> secrets = new ArrayList<>();
    if (key != null) {
      secrets.add(key);
    }
    options
        .headers()
        .forEach(
            (name, value) -> {
              String n = name.toLowerCase(Locale.ROOT);
              if (n.contains("auth") || n.contains("key") || n.contains("token")) {
                secrets.add(value);
              }
            });
    ErrorMapper mapper = mappers.apply(provider.id(), List.copyOf(secrets));
    return new ClientSetup(
        provider, model.strip(), base, key, options.headers(), new HttpTransport(options, mapper));
  }

  private static URI parseBase(String url, ModelProvider provider, String source) {
    String trimmed = url.strip();
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    try {
      URI u = new URI(trimmed);
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if ((scheme.equals("http") || scheme.equals("https")) && u.getHost() != null) {
        return u;
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    throw new InvalidSettingException(
        provider.id() + " base URL",
        url,
        source,
        "must be an http(s) URL such as "
            + (provider.defaultBaseUrl() != null
                ? provider.defaultBaseUrl()
                : "http://localhost:8000/v1"));
  }

  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }
}
