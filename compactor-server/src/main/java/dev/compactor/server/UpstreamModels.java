package dev.compactor.server;

import dev.compactor.chat.ChatModelFactory;
import dev.compactor.core.CompactorException;
import dev.compactor.core.model.ChatModel;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ChatModels;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's model clients: {@code NAME/model} goes to the upstream {@code NAME} when one is
 * configured, otherwise to what {@link ChatModels} makes of the name (the public OpenAI and
 * Anthropic endpoints with keys from the environment, local servers at their default URLs). One
 * client per model name, made on first use. Thread-safe.
 */
public final class UpstreamModels implements ChatModelFactory {
  private final Map<String, Upstream> upstreams;
  private final ChatModelOptions base;
  private final Map<String, String> env;
  private final Map<String, ChatModel> clients = new ConcurrentHashMap<>();

  /**
   * @param upstreams the configured upstreams by name
   * @param base the options every client starts from (timeout, retries, HTTP client)
   * @param env where API keys are read from
   */
  public UpstreamModels(
      Map<String, Upstream> upstreams, ChatModelOptions base, Map<String, String> env) {
    this.upstreams = Map.copyOf(upstreams);
    this.base = Objects.requireNonNull(base, "base");
    this.env = Map.copyOf(env);
  }

  @Override
  public ChatModel create(String model) {
    return clients.computeIfAbsent(model, this::make);
  }

  private ChatModel make(String spec) {
    String s = spec == null ? "" : spec.strip();
    int slash = s.indexOf('/');
    Upstream up = slash <= 0 ? null : upstreams.get(s.substring(0, slash).toLowerCase(Locale.ROOT));
    if (up == null) {
      return ChatModels.create(s, base.toBuilder().env(env).build());
    }
    ChatModelOptions.Builder options = base.toBuilder().env(env);
    if (up.baseUrl() != null) {
      options.baseUrl(up.baseUrl());
    }
    if (up.apiKeyEnv() != null) {
      String key = env.get(up.apiKeyEnv());
      if (key == null || key.isBlank()) {
        throw new CompactorException(
            "upstream "
                + up.name()
                + " reads its API key from the environment variable "
                + up.apiKeyEnv()
                + ", which is not set");
      }
      options.apiKey(key);
    }
    String name = s.substring(slash + 1);
    return ChatModels.create(
        (up.openAiCompatible() ? "openai-compatible" : up.name()) + "/" + name, options.build());
  }
}
