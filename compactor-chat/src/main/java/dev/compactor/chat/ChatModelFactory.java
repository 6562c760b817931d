package dev.compactor.chat;

import dev.compactor.core.model.ChatModel;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ChatModels;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes the {@link ChatModel} for a {@code provider/model} name: the chat's own model and the
 * summarization model. Implementations are thread-safe.
 */
@FunctionalInterface
public interface ChatModelFactory {
  /**
   * @param model {@code provider/model}, e.g. {@code openai/gpt-5}
   * @throws dev.compactor.core.catalog.InvalidSettingException when the name or the options are
   *     unusable (unknown provider, missing base URL)
   * @throws dev.compactor.core.CompactorException when the provider needs an API key and has none
   */
  ChatModel create(String model);

  /**
   * The standard factory: {@link ChatModels#create(String, ChatModelOptions)} with these options,
   * one client per name, created on first use and reused (clients are thread-safe).
   */
  static ChatModelFactory standard(ChatModelOptions options) {
    Map<String, ChatModel> cache = new ConcurrentHashMap<>();
    return model -> cache.computeIfAbsent(model, m -> ChatModels.create(m, options));
  }
}
