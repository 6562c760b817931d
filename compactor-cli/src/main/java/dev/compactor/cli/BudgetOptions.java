package dev.compactor.cli;

import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ModelApi;
import dev.compactor.log.config.CompactorConfig;
import dev.compactor.log.config.ConfigLocations;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ChatModels;
import dev.compactor.models.ModelProvider;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The options every command that works on a conversation takes: the model, where it is served, and
 * the context budget. An explicit {@code --context-budget} given for a conversation directory is
 * persisted in its {@code settings.json} and applies to later commands on it. {@code --base-url}
 * and {@code --api} matter to commands that call the model ({@code compact --strategy summarize});
 * API keys come from the environment ({@code OPENAI_API_KEY}, {@code ANTHROPIC_API_KEY}) and are
 * never printed.
 */
final class BudgetOptions {
  static final String DEFAULT_MODEL = "openai/gpt-4o";
  static final String SETTING_KEY = "context_budget";

  @Option(
      names = "--model",
      paramLabel = "M",
      description =
          "Model as provider/model (e.g. anthropic/claude-sonnet-4-5). Default: the model the"
              + " conversation names, else "
              + DEFAULT_MODEL
              + ".")
  String model;

  @Option(
      names = "--base-url",
      paramLabel = "URL",
      description =
          "Where the model is served, e.g. http://127.0.0.1:8080/v1 for an OpenAI-compatible"
              + " server (llama.cpp, vLLM, Ollama, LM Studio). With an openai/... model it"
              + " selects Chat Completions unless --api says otherwise. No key is needed for a"
              + " server other than the provider's own.")
  String baseUrl;

  @Option(
      names = "--api",
      paramLabel = "API",
      description =
          "Wire API for openai/... and OpenAI-compatible models: chat_completions or responses."
              + " Default: responses for OpenAI itself, chat_completions with --base-url.")
  String api;

  @Option(
      names = "--context-budget",
      paramLabel = "B",
      description =
          "Context budget: a fraction of the window (0.85) or absolute tokens (300000)."
              + " Persisted for a conversation directory.")
  String contextBudget;

  /** The model to use: explicit, else detected, else the default. */
  String model(ConversationInput input) {
    if (model != null && !model.isBlank()) {
      return model.trim();
    }
    String detected = input.detectedModel();
    return detected != null ? detected : DEFAULT_MODEL;
  }

  /** Whether the model was named with {@code --model}. */
  boolean modelGiven() {
    return model != null && !model.isBlank();
  }

  /** Whether {@code --base-url} was given. */
  boolean baseUrlGiven() {
    return baseUrl != null && !baseUrl.isBlank();
  }

  /**
   * A client for {@code model}: {@code --base-url}, {@code --api} and the keys of {@code env}.
   *
   * @throws CompactorException naming what is missing when the provider needs a key and has none,
   *     or when the model name, the API or the base URL is not valid
   */
  ChatModel chatModel(String model, Map<String, String> env) {
    ModelApi chosen = null;
    if (api != null && !api.isBlank()) {
      try {
        chosen = ModelApi.parse(api.strip());
      } catch (IllegalArgumentException e) {
        throw new InvalidSettingException(
            "model API", api, "--api", "must be chat_completions or responses");
      }
    } else if (baseUrlGiven() && model.toLowerCase(Locale.ROOT).startsWith("openai/")) {
      // An OpenAI-compatible server: Chat Completions is the API they all implement.
      chosen = ModelApi.CHAT_COMPLETIONS;
    }
    ChatModelOptions options =
        ChatModelOptions.builder().env(env).baseUrl(baseUrl).api(chosen).build();
    try {
      return ChatModels.create(model, options);
    } catch (InvalidSettingException e) {
      throw e;
    } catch (CompactorException e) {
      // No key: say how to get on without one.
      String provider = model.substring(0, Math.max(0, model.indexOf('/')));
      String keyEnv = ModelProvider.parse(provider).keyEnv();
      throw new CompactorException(
          "no API key for "
              + model
              + ": set "
              + keyEnv
              + ", pass --base-url for an OpenAI-compatible server, or use --summarizer"
              + " extractive for the offline summarizer",
          e);
    }
  }

  /** Where the model came from, for reports. */
  String modelSource(ConversationInput input) {
    if (model != null && !model.isBlank()) {
      return "--model";
    }
    return input.detectedModel() != null ? "conversation" : "default";
  }

  /**
   * Resolves the budget. For a conversation directory an explicit value is validated, then
   * persisted; without one the persisted value (if any) is the explicit layer.
   */
  ResolvedBudget resolve(ConversationInput input, String model, Map<String, String> env) {
    CompactorConfig config =
        CompactorConfig.load(ConfigLocations.standard(Path.of("").toAbsolutePath(), env));
    BudgetSetting explicit = null;
    StoredConversation store = input.store();
    if (contextBudget != null) {
      explicit = BudgetSetting.of(contextBudget, "--context-budget");
    } else if (store != null) {
      Optional<String> saved = store.settings().get(SETTING_KEY);
      if (saved.isPresent()) {
        explicit =
            BudgetSetting.of(saved.get(), "context_budget persisted in " + store.settings().file());
      }
    }
    ResolvedBudget b = config.resolveBudget(model, env, explicit);
    if (contextBudget != null && store != null) {
      store.settings().put(SETTING_KEY, contextBudget.trim());
    }
    return b;
  }

  /** Persists an explicit {@code --context-budget} in {@code c}'s settings (no-op without one). */
  void persist(StoredConversation c) {
    if (contextBudget != null) {
      c.settings().put(SETTING_KEY, contextBudget.trim());
    }
  }
}
