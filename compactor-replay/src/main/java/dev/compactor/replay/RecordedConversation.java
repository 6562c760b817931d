package dev.compactor.replay;

import dev.compactor.core.budget.BudgetValue;
import dev.compactor.core.budget.ContextBudget;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.replay.cost.Price;
import dev.compactor.replay.internal.Facts;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One recorded conversation made ready for replay: its messages, where the model calls are, the
 * facts each call needs, and the model, window, budget and price it is replayed with. Everything
 * that does not depend on the strategy is computed once here and shared by every strategy's replay.
 * Immutable and thread-safe.
 *
 * <p>Recorded provider usage and input fingerprints are removed from the messages: they describe
 * the original, uncompacted requests (in the original model's tokenizer), so a policy that anchored
 * on them would measure a different conversation than the one replayed. Every strategy is measured
 * with the replay's counter instead.
 */
public final class RecordedConversation {
  private final String source;
  private final String name;
  private final String model;
  private final long window;
  private final int maxOutput;
  private final long budget;
  private final Price price;
  private final List<Message> messages;
  private final int[] calls;
  private final List<List<String>> needed;
  private final Map<Message, Set<String>> facts;

  private RecordedConversation(
      String source,
      String name,
      String model,
      long window,
      int maxOutput,
      long budget,
      Price price,
      List<Message> messages) {
    this.source = source;
    this.name = name;
    this.model = model;
    this.window = window;
    this.maxOutput = maxOutput;
    this.budget = budget;
    this.price = price;
    this.messages = List.copyOf(messages);
    Map<Message, Set<String>> f = new IdentityHashMap<>();
    List<Integer> callList = new ArrayList<>();
    List<List<String>> neededList = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < this.messages.size(); i++) {
      Message m = this.messages.get(i);
      Set<String> mine = Facts.of(m);
      f.put(m, Collections.unmodifiableSet(mine));
      if (isCall(m)) {
        callList.add(i);
        List<String> need = new ArrayList<>();
        for (String id : mine) {
          if (seen.contains(id)) {
            need.add(id);
          }
        }
        Collections.sort(need);
        neededList.add(List.copyOf(need));
      }
      seen.addAll(mine);
    }
    this.facts = f;
    this.calls = callList.stream().mapToInt(Integer::intValue).toArray();
    this.needed = List.copyOf(neededList);
  }

  /**
   * Prepares a conversation.
   *
   * @param source the file it came from (for reports)
   * @param conversation as imported
   * @param options window, output, budget, model and prices
   * @throws dev.compactor.core.catalog.InvalidSettingException when the budget is invalid
   */
  public static RecordedConversation prepare(
      String source, ImportedConversation conversation, ReplayOptions options) {
    Objects.requireNonNull(source, "source");
    String model = options.model();
    if (model == null || model.isBlank()) {
      model = recordedModel(conversation.messages());
    }
    if (model == null) {
      model = ReplayOptions.DEFAULT_MODEL;
    }
    ModelInfo info = ModelCatalog.builtIn().lookup(model);
    long window = options.window() != null ? options.window() : info.contextWindow();
    int maxOutput =
        options.maxOutput() != null
            ? options.maxOutput()
            : (int) Math.min(info.maxOutputTokens(), window / 2);
    if (options.maxOutput() != null && maxOutput >= window) {
      throw new InvalidSettingException(
          "max output",
          String.valueOf(maxOutput),
          "--max-output",
          String.format(
              java.util.Locale.ROOT,
              "must be smaller than the context window (%,d tokens for %s%s)",
              window,
              model,
              options.window() != null ? ", from --window" : ""));
    }
    long ceiling = ContextBudget.ceiling(window, maxOutput, ContextBudget.DEFAULT_HEADROOM);
    long budget =
        options.contextBudget() == null
            ? ContextBudget.defaultBudget(window, maxOutput, ContextBudget.DEFAULT_HEADROOM)
            : Math.max(
                1,
                Math.min(
                    BudgetValue.parse(options.contextBudget(), "--context-budget")
                        .tokensFor(window),
                    ceiling));
    List<Message> stripped = new ArrayList<>(conversation.messages().size());
    for (Message m : conversation.messages()) {
      stripped.add(withoutUsage(m));
    }
    return new RecordedConversation(
        source,
        conversation.name(),
        model,
        window,
        maxOutput,
        budget,
        Price.of(options.prices(), model),
        stripped);
  }

  /** Whether a model call produced this message: a recorded assistant message that is sent. */
  public static boolean isCall(Message m) {
    return m.role() == Role.ASSISTANT && !m.uiOnly();
  }

  /**
   * The model the recording names: the newest assistant message's, prefixed with its provider when
   * the name has none ({@code openai/gpt-4o}), or null when no assistant message names one.
   */
  public static String recordedModel(List<Message> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      Message m = messages.get(i);
      if (m.role() == Role.ASSISTANT && m.metadata().model() != null) {
        String mm = m.metadata().model();
        String provider = m.metadata().provider();
        return provider != null && !mm.contains("/") ? provider + "/" + mm : mm;
      }
    }
    return null;
  }

  private static Message withoutUsage(Message m) {
    MessageMetadata md = m.metadata();
    if (md.usage() == null && md.input() == null) {
      return m;
    }
    return m.toBuilder()
        .metadata(new MessageMetadata(md.model(), md.provider(), null, null, md.extra()))
        .build();
  }

  /** The file the conversation came from. */
  public String source() {
    return source;
  }

  /** The conversation's name within its file. */
  public String name() {
    return name;
  }

  /** The model calls go to. */
  public String model() {
    return model;
  }

  /** The context window. */
  public long window() {
    return window;
  }

  /** Output tokens reserved per call. */
  public int maxOutput() {
    return maxOutput;
  }

  /** The context budget. */
  public long budget() {
    return budget;
  }

  /** The price calls are billed at. */
  public Price price() {
    return price;
  }

  /** The recorded messages, in order (usage removed). */
  public List<Message> messages() {
    return messages;
  }

  /**
   * What a strategy is told when it starts on this conversation: its model, budget, window, output
   * reserve and recorded messages.
   *
   * @param counter how the replay counts tokens
   * @param clock the replay time
   * @param events where the session reports compactions, reminders and summary calls
   */
  public ReplaySetup setup(TokenCounter counter, Clock clock, ReplayEvents events) {
    return new ReplaySetup(model, counter, budget, window, maxOutput, clock, events, messages);
  }

  /** Number of model calls. */
  public int callCount() {
    return calls.length;
  }

  /** Index in {@link #messages()} of the assistant message call {@code k} produced. */
  public int callIndex(int k) {
    return calls[k];
  }

  /** The facts call {@code k} needs: identifiers its response uses that appeared earlier. */
  public List<String> needed(int k) {
    return needed.get(k);
  }

  /** The facts of a recorded message, or null for a message that is not one of them. */
  Set<String> recordedFacts(Message m) {
    return facts.get(m);
  }
}
