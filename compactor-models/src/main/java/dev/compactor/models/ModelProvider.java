package dev.compactor.models;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The providers {@link ChatModels} knows, with their default base URLs and the environment
 * variables they read. OpenAI base URLs include the API version ({@code …/v1}), Anthropic's do not,
 * as in the official SDKs. Keys of local servers come only from {@link ChatModelOptions#apiKey()}:
 * an OpenAI key is never sent to another host.
 */
public enum ModelProvider {
  OPENAI("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
  ANTHROPIC("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
  OLLAMA("ollama", "http://localhost:11434/v1", null, null),
  VLLM("vllm", "http://localhost:8000/v1", null, null),
  LLAMACPP("llamacpp", "http://localhost:8080/v1", null, null),
  LMSTUDIO("lmstudio", "http://localhost:1234/v1", null, null),
  /** Any other OpenAI-compatible server; needs a base URL. */
  OPENAI_COMPATIBLE("openai-compatible", null, null, null);

  private final String id;
  private final String defaultBaseUrl;
  private final String keyEnv;
  private final String baseUrlEnv;

  ModelProvider(String id, String defaultBaseUrl, String keyEnv, String baseUrlEnv) {
    this.id = id;
    this.defaultBaseUrl = defaultBaseUrl;
    this.keyEnv = keyEnv;
    this.baseUrlEnv = baseUrlEnv;
  }

  /** The prefix in {@code provider/model} and the value of {@code metadata.provider}. */
  public String id() {
    return id;
  }

  /** The base URL used when none is configured, or null when one must be given. */
  public String defaultBaseUrl() {
    return defaultBaseUrl;
  }

  /** The environment variable holding the API key, or null. */
  public String keyEnv() {
    return keyEnv;
  }

  /** The environment variable overriding the base URL, or null. */
  public String baseUrlEnv() {
    return baseUrlEnv;
  }

  /** Whether the provider's own endpoint needs an API key (OpenAI, Anthropic). */
  public boolean requiresKey() {
    return keyEnv != null;
  }

  /**
   * The provider with this id, case-insensitively.
   *
   * @throws IllegalArgumentException listing the known ids
   */
  public static ModelProvider parse(String id) {
    if (id != null) {
      for (ModelProvider p : values()) {
        if (p.id.equalsIgnoreCase(id.trim())) {
          return p;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown model provider \""
            + id
            + "\" (known: "
            + Arrays.stream(values()).map(ModelProvider::id).collect(Collectors.joining(", "))
            + ")");
  }

  @Override
  public String toString() {
    return id;
  }
}
