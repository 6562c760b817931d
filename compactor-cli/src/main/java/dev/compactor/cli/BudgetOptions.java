package dev.compactor.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.compactor.cli.config.CompactorConfig;
import dev.compactor.cli.config.ConfigLocations;
import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.ContextBudget;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ModelApi;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.ChatModels;
import dev.compactor.models.ModelProvider;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options every command that works on a conversation takes: the model, where it is served, and
 * the context budget. An explicit {@code --context-budget} given to a writing command for a
 * conversation directory is persisted in its {@code settings.json} and applies to later commands on
 * it. {@code --base-url} and {@code --api} matter to commands that call the model ({@code compact
 * --strategy summarize}); API keys come from the environment ({@code OPENAI_API_KEY}, {@code
 * ANTHROPIC_API_KEY}) and are never printed.
 */
final class BudgetOptions {
  static final String DEFAULT_MODEL = "openai/gpt-4o";
  static final String SETTING_KEY = "context_budget";

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

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

  @Option(names = "--timeout", paramLabel = "T", description = Timeouts.DESCRIPTION)
  String timeout;

  @Option(
      names = "--context-budget",
      paramLabel = "B",
      description =
          "Context budget: a fraction of the window (0.85) or absolute tokens (300000)."
              + " Persisted for a conversation directory.")
  String contextBudget;

  /** The model to use: explicit, else detected, else the default. */
  String model(ConversationInput input) {
    if (model != null) {
      return ModelNames.check(model, "--model");
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
    return chatModel(
        model,
        env,
        ", pass --base-url for an OpenAI-compatible server, or use --summarizer extractive for the"
            + " offline summarizer");
  }

  /**
   * As {@link #chatModel(String, Map)}, with {@code alternative} (", or …") ending the message that
   * says a key is missing.
   */
  ChatModel chatModel(String model, Map<String, String> env, String alternative) {
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
        ChatModelOptions.builder()
            .env(env)
            .baseUrl(baseUrl)
            .api(chosen)
            .timeout(Timeouts.parse(timeout, "--timeout"))
            .build();
    try {
      return ChatModels.create(model, options);
    } catch (InvalidSettingException e) {
      throw e;
    } catch (CompactorException e) {
      // No key: say how to get on without one.
      String provider = model.substring(0, Math.max(0, model.indexOf('/')));
      String keyEnv = ModelProvider.parse(provider).keyEnv();
      throw new CompactorException("no API key for " + model + ": set " + keyEnv + alternative, e);
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
    return resolve(input, model, env, true);
  }

  /**
   * As {@link #resolve(ConversationInput, String, Map)}; without {@code persist} (read-only
   * commands) an explicit value is used but not saved.
   */
  ResolvedBudget resolve(
      ConversationInput input, String model, Map<String, String> env, boolean persist) {
    CompactorConfig config =
        CompactorConfig.load(ConfigLocations.standard(Path.of("").toAbsolutePath(), env));
    if (mixee != null) {
      for (String k : config.unknownKeys()) {
        mixee
            .commandLine()
            .getErr()
            .println("compactor: warning: unknown configuration key " + k + " (ignored)");
      }
      mixee.commandLine().getErr().flush();
    }
    BudgetSetting explicit = null;
    StoredConversation store = input.store();
    if (contextBudget != null) {
      explicit = BudgetSetting.of(contextBudget, "--context-budget");
    } else if (input.storeDir() != null) {
      Optional<String> saved = input.setting(SETTING_KEY);
      if (saved.isPresent()) {
        explicit =
            BudgetSetting.of(
                saved.get(),
                "context_budget persisted in " + input.storeDir().resolve("settings.json"));
      }
    }
    ResolvedBudget b = config.resolveBudget(model, env, explicit);
    long ceiling = ContextBudget.ceiling(b.window(), b.maxOutput(), ContextBudget.DEFAULT_HEADROOM);
    long floor = Math.min(MIN_BUDGET, ceiling);
    if (!b.source().equals("default") && b.requested() < floor) {
      throw new InvalidSettingException(
          "context budget",
          explicit != null && b.source().equals(explicit.source())
              ? explicit.value()
              : b.requested() + " tokens",
          b.source(),
          String.format(
              Locale.ROOT,
              "gives %,d tokens: a budget must be at least %,d tokens (the %,d-token window of %s"
                  + " leaves up to %,d)",
              b.requested(),
              MIN_BUDGET,
              b.window(),
              model,
              ceiling));
    }
    if (persist && store != null) {
      persist(store, b);
    }
    return b;
  }

  /** The smallest budget a command accepts, in tokens (when the window leaves that much). */
  static final long MIN_BUDGET = 1_000;

  /** The setting that records the tokens a persisted budget resolved to when it was given. */
  static final String USED_KEY = "context_budget_tokens";

  /**
   * The budget as printed (as JSON with {@code --json}): tokens and source, and what was asked for
   * when it was clamped.
   *
   * @param requested the tokens asked for, when {@code clamped}; else null (and not printed)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Budget(long tokens, String source, boolean clamped, Long requested) {
    static Budget of(ResolvedBudget b) {
      return new Budget(b.tokens(), b.source(), b.clamped(), b.clamped() ? b.requested() : null);
    }

    /**
     * The source: {@code SOURCE}, or {@code SOURCE; clamped from N to window − max output − 1,000}
     * when it was clamped.
     */
    String describeSource() {
      if (!clamped) {
        return source;
      }
      return String.format(
          Locale.ROOT, "%s; clamped from %,d to window − max output − 1,000", source, requested);
    }
  }

  /**
   * Persists an explicit {@code --context-budget} in {@code c}'s settings, with the tokens it
   * resolved to (no-op without one).
   */
  void persist(StoredConversation c, ResolvedBudget b) {
    if (contextBudget != null) {
      c.settings().put(SETTING_KEY, contextBudget.trim());
      c.settings().put(USED_KEY, Long.toString(b.tokens()));
    }
  }
}
