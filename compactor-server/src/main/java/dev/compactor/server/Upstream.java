package dev.compactor.server;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named model provider the server calls: chat-task models {@code NAME/model} go to the upstream
 * {@code NAME}. {@code openai} and {@code anthropic} speak their providers' APIs; any other name is
 * an OpenAI-compatible server (Chat Completions).
 *
 * @param name the provider part of model names, lower case ({@code openai}, {@code anthropic},
 *     {@code gpu-box})
 * @param baseUrl the API base URL ({@code https://api.openai.com/v1}); null for the provider's
 *     public endpoint (only {@code openai} and {@code anthropic} have one)
 * @param apiKeyEnv the environment variable holding the API key, or null for the provider's usual
 *     one ({@code OPENAI_API_KEY}, {@code ANTHROPIC_API_KEY}) or none
 * @param proxy how the compacting proxy treats this upstream's conversations (budget, reminder,
 *     summary model, per model); {@link ProxySettings#NONE} when not configured
 */
public record Upstream(String name, String baseUrl, String apiKeyEnv, ProxySettings proxy) {
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  private static final Pattern ENV = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  /**
   * @throws IllegalArgumentException naming the upstream and the bad value
   */
  public Upstream {
    Objects.requireNonNull(name, "name");
    proxy = proxy == null ? ProxySettings.NONE : proxy;
    name = name.strip().toLowerCase(Locale.ROOT);
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "upstream name \""
              + name
              + "\" must be 1 to 64 of a-z, 0-9, '.', '_', '-' (it is the provider part of"
              + " model names)");
    }
    if (baseUrl != null) {
      baseUrl = checkUrl(name, baseUrl.strip());
    } else if (!name.equals("openai") && !name.equals("anthropic")) {
      throw new IllegalArgumentException(
          "upstream " + name + " needs a base URL (only openai and anthropic have a default)");
    }
    if (apiKeyEnv != null && !ENV.matcher(apiKeyEnv).matches()) {
      throw new IllegalArgumentException(
          "upstream "
              + name
              + ": api_key_env \""
              + apiKeyEnv
              + "\" is not an environment variable name");
    }
  }

  /** An upstream with no proxy policy. */
  public Upstream(String name, String baseUrl, String apiKeyEnv) {
    this(name, baseUrl, apiKeyEnv, ProxySettings.NONE);
  }

  /** This upstream with another proxy policy. */
  public Upstream withProxy(ProxySettings policy) {
    return new Upstream(name, baseUrl, apiKeyEnv, policy);
  }

  /**
   * {@code NAME=URL}, as {@code --upstream} takes it.
   *
   * @throws IllegalArgumentException naming the value when it has no {@code =} or a part is bad
   */
  public static Upstream parse(String spec) {
    int eq = spec == null ? -1 : spec.indexOf('=');
    if (eq <= 0 || eq == spec.length() - 1) {
      throw new IllegalArgumentException(
          "\"" + spec + "\" is not NAME=URL (e.g. openai=https://api.openai.com/v1)");
    }
    return new Upstream(spec.substring(0, eq), spec.substring(eq + 1), null);
  }

  /** Whether model names of this upstream go to an OpenAI-compatible server. */
  public boolean openAiCompatible() {
    return !name.equals("openai") && !name.equals("anthropic");
  }

  private static String checkUrl(String name, String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "upstream " + name + ": base URL \"" + url + "\" is not a URL: " + e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "upstream " + name + ": base URL \"" + url + "\" must be http:// or https://HOST/…");
    }
    if (uri.getUserInfo() != null) {
      throw new IllegalArgumentException(
          "upstream " + name + ": the base URL must not carry credentials; use api_key_env");
    }
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
