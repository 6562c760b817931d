package dev.compactor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.summary.ExtractiveSummarizer;
import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.ManualCompaction;
import dev.compactor.core.policy.ManualCompactor;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.core.view.Violation;
import dev.compactor.log.config.CompactorConfig;
import dev.compactor.log.config.ConfigLocations;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.store.CompactionRecord;
import dev.compactor.log.store.StoredArchive;
import dev.compactor.log.store.StoredConversation;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code compactor compact}: compacts a conversation into a new view and reports what it did. */
@Command(
    name = "compact",
    mixinStandardHelpOptions = true,
    description = {
      "Compacts a conversation into a new view (the master log stays complete) and prints the"
          + " report.",
      "FILE is a conversation directory, or a transcript in any supported format, which is first"
          + " imported into a conversation directory (--out, default ./<name>.compactor).",
      "summarize asks the model for the checkpoint when --model or --base-url is given (key from"
          + " OPENAI_API_KEY / ANTHROPIC_API_KEY; none is needed for a --base-url server);"
          + " otherwise, or with --summarizer extractive, it uses the offline extractive"
          + " summarizer. A model named with --model whose provider needs a key that is not set"
          + " is an error, not a silent fallback."
    })
final class CompactCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @ParentCommand CompactorCommand parent;

  @Parameters(index = "0", paramLabel = "FILE", description = "Transcript or directory.")
  Path file;

  @Mixin BudgetOptions budget = new BudgetOptions();

  @Option(
      names = "--strategy",
      paramLabel = "S",
      defaultValue = "trim",
      description = "trim (default), mask, summarize, or any registered strategy.")
  String strategy;

  @Option(
      names = "--instructions",
      paramLabel = "TEXT",
      description = "Instructions for summarize (added after the project's compact_instructions).")
  String instructions;

  @Option(
      names = "--summarizer",
      paramLabel = "S",
      description =
          "Who writes the summarize checkpoint: model (the --model, at --base-url) or extractive"
              + " (offline, no model call). Default: model when --model or --base-url is given,"
              + " else extractive.")
  String summarizer;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Conversation directory to import into (default ./<file name>.compactor).")
  Path out;

  @Option(
      names = "--conversation",
      paramLabel = "NAME",
      description = "Which conversation of a multi-conversation file (e.g. tau-bench).")
  String conversationName;

  @Option(names = "--format", paramLabel = "F", description = "Read FILE as this format.")
  String format;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Option(
      names = "--strict",
      description =
          "Refuse a transcript with broken parts (malformed lines, entries without a role, tool"
              + " results without their call, …) instead of skipping or repairing them.")
  boolean strict;

  @Override
  public Integer call() throws Exception {
    Map<String, String> env = CompactorCommand.envOf(parent);
    ModelNames.check(budget.model, "--model"); // before anything is imported
    Path dir = Files.isDirectory(file) ? file : importInto();
    ConversationInput input = ConversationInput.read(dir, null);
    String model = budget.model(input);
    ResolvedBudget b = budget.resolve(input, model, env);
    CompactorConfig config =
        CompactorConfig.load(ConfigLocations.standard(Path.of("").toAbsolutePath(), env));
    TokenCounter counter = TokenCounters.forModel(model);
    ProviderRegistry registry = ProviderRegistry.global();
    Map<String, Object> out = new LinkedHashMap<>();
    try (StoredConversation conv = StoredConversation.open(dir)) {
      CompressionConfig base =
          CompressionConfig.builder().counter(counter).archive(new StoredArchive(conv)).build();
      PolicyContext ctx =
          new PolicyContext(
              model,
              b.tokens(),
              base,
              config.compactInstructions(),
              config.keepRecentTokens().orElse(PolicyContext.DEFAULT_KEEP_RECENT_TOKENS));
      Function<String, ContextProvider> providers = registry::get;
      String summarizerName = null;
      if (registry.get(strategy).name().equals(ManualCompaction.SUMMARIZE)) {
        Summarizer s = summarizer(model, env, config, counter);
        summarizerName = s.name();
        SummarizeProvider summarize = new SummarizeProvider(s);
        providers =
            name -> name.equals(ManualCompaction.SUMMARIZE) ? summarize : registry.get(name);
      }
      ManualCompactor manual =
          new ManualCompactor(
              providers, Clock.systemUTC(), report -> conv.journal().append(record(report)));
      int messagesBefore = visible(conv.activeMessages());
      long tokensBefore = counter.countMessages(conv.activeMessages());
      CompactionOutcome o = manual.compact(conv, strategy, instructions, ctx);
      List<Message> after = conv.activeMessages();
      List<Violation> invalid = new ViewValidator().validate(after);
      out.put("conversation", dir.toString());
      out.put("model", model);
      out.put("strategy", strategy);
      if (summarizerName != null) {
        out.put("summarizer", summarizerName);
      }
      out.put("budget", BudgetOptions.json(b));
      out.put("tokensBefore", tokensBefore);
      out.put("messagesBefore", messagesBefore);
      if (o instanceof CompactionOutcome.Compacted c) {
        AppliedCompaction r = c.report();
        out.put("outcome", "compacted");
        out.put("tokensAfter", r.tokensAfter());
        out.put("messagesAfter", r.messagesAfter());
        out.put("durationMs", r.duration().toMillis());
        out.put("view", r.viewId());
        out.put("withinBudget", r.tokensAfter() <= b.tokens());
        out.put("limitations", r.limitations());
        c.suggestion().ifPresent(s -> out.put("suggestion", s));
      } else {
        out.put(
            "outcome",
            o instanceof CompactionOutcome.Failed
                ? "failed"
                : o instanceof CompactionOutcome.Limited ? "limited" : "not-needed");
        out.put("tokensAfter", tokensBefore);
        out.put("messagesAfter", messagesBefore);
        out.put("durationMs", 0);
        out.put("view", conv.activeView().id());
        out.put("withinBudget", tokensBefore <= b.tokens());
        out.put("limitations", List.of());
        out.put(
            "reason",
            o instanceof CompactionOutcome.Failed f
                ? f.reason()
                : o instanceof CompactionOutcome.Limited l
                    ? l.reason()
                    : ((CompactionOutcome.NotNeeded) o).reason());
      }
      List<String> inv = new ArrayList<>();
      invalid.forEach(v -> inv.add(v.toString()));
      out.put("invalid", inv);
      print(out);
      if (o instanceof CompactionOutcome.Failed) {
        return 3;
      }
      return invalid.isEmpty() ? 0 : 1;
    }
  }

  /**
   * The summarizer of the summarize strategy: the model when asked for (explicitly, or by naming a
   * model or a base URL), else the offline extractive one.
   */
  private Summarizer summarizer(
      String model, Map<String, String> env, CompactorConfig config, TokenCounter counter) {
    String choice =
        summarizer != null
            ? summarizer.strip().toLowerCase(Locale.ROOT)
            : budget.modelGiven() || budget.baseUrlGiven() ? "model" : "extractive";
    switch (choice) {
      case "extractive":
        return new ExtractiveSummarizer();
      case "model":
        ModelInfo info = config.catalog(ModelCatalog.builtIn()).lookup(model, env);
        ModelSummarizer.Builder b =
            ModelSummarizer.builder(budget.chatModel(model, env))
                .contextWindow(info.contextWindow())
                .counter(counter);
        if (info.maxOutputTokens() > 0) {
          b.maxOutputTokens(
              Math.min(ModelSummarizer.DEFAULT_MAX_OUTPUT_TOKENS, info.maxOutputTokens()));
        }
        return b.build();
      default:
        throw new InvalidSettingException(
            "summarizer", summarizer, "--summarizer", "must be model or extractive");
    }
  }

  private Path importInto() {
    ConversationInput input = ConversationInput.read(file, format).checked(strict);
    ImportedConversation chosen = choose(input);
    Path dir = out != null ? out : defaultDir(file);
    if (Files.exists(dir.resolve("conversation.jsonl"))) {
      try (StoredConversation c = StoredConversation.open(dir)) {
        String source = c.settings().get("source").orElse(null);
        String here = file.toAbsolutePath().normalize() + "#" + chosen.name();
        if (!here.equals(source)) {
          throw new CompactorException(
              dir
                  + " already holds another conversation (imported from "
                  + source
                  + "); choose another --out");
        }
      }
      return dir;
    }
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.settings().put("source", file.toAbsolutePath().normalize() + "#" + chosen.name());
      c.settings().put("format", input.format());
      for (Message m : chosen.messages()) {
        c.append(m);
      }
    }
    spec.commandLine()
        .getErr()
        .printf(
            "imported %d messages (%s) into %s%n", chosen.messages().size(), input.format(), dir);
    new ConversationInput(input.path(), input.format(), List.of(chosen), null)
        .printNotes(spec.commandLine().getErr());
    return dir;
  }

  private ImportedConversation choose(ConversationInput input) {
    List<ImportedConversation> all = input.conversations();
    if (conversationName != null) {
      return all.stream()
          .filter(c -> c.name().equals(conversationName))
          .findFirst()
          .orElseThrow(
              () ->
                  new CompactorException(
                      "no conversation named \""
                          + conversationName
                          + "\" in "
                          + file
                          + " (it has "
                          + names(all)
                          + ")"));
    }
    if (all.size() != 1) {
      throw new CompactorException(
          file
              + " holds "
              + all.size()
              + " conversations; pick one with --conversation NAME ("
              + names(all)
              + ")");
    }
    return all.get(0);
  }

  private static String names(List<ImportedConversation> all) {
    List<String> n = all.stream().map(ImportedConversation::name).limit(5).toList();
    return String.join(", ", n) + (all.size() > 5 ? ", …" : "");
  }

  static Path defaultDir(Path file) {
    String name = file.getFileName().toString();
    for (String ext : List.of(".gz", ".jsonl", ".json", ".traj")) {
      if (name.endsWith(ext)) {
        name = name.substring(0, name.length() - ext.length());
      }
    }
    return Path.of(name + ".compactor");
  }

  private static CompactionRecord record(AppliedCompaction r) {
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("duration_ms", r.duration().toMillis());
    if (!r.limitations().isEmpty()) {
      extra.put("limitations", r.limitations());
    }
    return new CompactionRecord(
        r.at(),
        r.trigger().wireName(),
        r.strategy(),
        r.tokensBefore(),
        r.tokensAfter(),
        r.messagesBefore(),
        r.messagesAfter(),
        r.viewId(),
        extra);
  }

  private static int visible(List<Message> messages) {
    return (int) messages.stream().filter(m -> !m.uiOnly()).count();
  }

  @SuppressWarnings("unchecked")
  private void print(Map<String, Object> out) throws Exception {
    PrintWriter w = spec.commandLine().getOut();
    if (json) {
      w.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out));
    } else {
      Map<String, Object> b = (Map<String, Object>) out.get("budget");
      w.printf(
          "%s: %s with %s%s%n",
          out.get("conversation"),
          out.get("outcome"),
          out.get("strategy"),
          out.containsKey("summarizer") ? " (summarizer " + out.get("summarizer") + ")" : "");
      w.printf(
          "  tokens   %,d → %,d (budget %,d from %s)%n",
          (long) out.get("tokensBefore"),
          ((Number) out.get("tokensAfter")).longValue(),
          (long) b.get("tokens"),
          BudgetOptions.describeSource(b));
      w.printf(
          "  messages %d → %d; view %s; %s ms%n",
          out.get("messagesBefore"),
          out.get("messagesAfter"),
          out.get("view"),
          out.get("durationMs"));
      if (out.containsKey("reason")) {
        w.printf("  %s%n", out.get("reason"));
      }
      if (out.containsKey("suggestion")) {
        w.printf("  suggestion: %s%n", out.get("suggestion"));
      }
      for (String l : (List<String>) out.get("limitations")) {
        w.printf("  limitation: %s%n", l);
      }
      List<String> inv = (List<String>) out.get("invalid");
      w.printf("  invariants %s%n", inv.isEmpty() ? "valid" : inv.size() + " violation(s): " + inv);
    }
    w.flush();
  }
}
