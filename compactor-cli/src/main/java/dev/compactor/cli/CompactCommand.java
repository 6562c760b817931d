package dev.compactor.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.compactor.cli.config.CompactorConfig;
import dev.compactor.cli.config.ConfigLocations;
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
import dev.compactor.core.policy.Shortfall;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.core.view.Violation;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.store.StoredArchive;
import dev.compactor.log.store.StoredConversation;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
          + " imported into a conversation directory (--out, default ./<name>.compactor). The"
          + " import is written beside it and moved into place only when the command succeeds;"
          + " the directory records the file's size and SHA-256 and is used again only while the"
          + " file is unchanged (--reimport replaces it after a change).",
      "summarize asks the model for the checkpoint when --model or --base-url is given (key from"
          + " OPENAI_API_KEY / ANTHROPIC_API_KEY; none is needed for a --base-url server);"
          + " otherwise, or with --summarizer extractive, it uses the offline extractive"
          + " summarizer. A model named with --model whose provider needs a key that is not set"
          + " is an error, not a silent fallback.",
      "Steps that take a while (import, compaction) report progress on stderr."
    })
final class CompactCommand implements Callable<Integer> {
  static final int EXIT_OK = 0;
  static final int EXIT_INVALID = 1;
  static final int EXIT_ERROR = 2;
  static final int EXIT_FAILED = 3;
  static final int EXIT_OVER_BUDGET = 4;

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .setSerializationInclusion(JsonInclude.Include.NON_NULL);

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @ParentCommand CompactorCommand parent;

  @Parameters(index = "0", paramLabel = "FILE", description = "Transcript or directory.")
  Path file;

  @Mixin BudgetOptions budget = new BudgetOptions();

  @Mixin PluginOptions plugins = new PluginOptions();

  @Option(
      names = "--strategy",
      paramLabel = "S",
      defaultValue = "trim",
      description =
          "trim (default), mask, summarize, code-aware, redundancy, or any strategy a plugin adds"
              + " (compactor providers lists them).")
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
      description =
          "Conversation directory to import into (default ./<file name>.compactor): a new or"
              + " empty directory, or an earlier import of the same, unchanged FILE.")
  Path out;

  @Option(
      names = "--reimport",
      description =
          "When FILE changed since it was imported into the directory, replace the directory"
              + " with a fresh import (its views and journal go with it) instead of refusing.")
  boolean reimport;

  @Option(
      names = "--conversation",
      paramLabel = "NAME",
      description = "Which conversation of a multi-conversation file (e.g. tau-bench).")
  String conversationName;

  @Option(names = "--format", paramLabel = "F", description = "Read FILE as this format.")
  String format;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Mixin StrictOption reading = new StrictOption();

  /**
   * What {@code compact} prints (as JSON with {@code --json}).
   *
   * @param outcome {@code compacted} (a new view within the budget), {@code not-needed} (within the
   *     budget already), {@code over-budget} (the view, new or not, is still over it) or {@code
   *     failed} (the strategy failed; the view is unchanged)
   * @param changed whether a new view was made
   * @param reason why the outcome is what it is, for every outcome but {@code compacted}
   * @param hints what would get further (options of this command), when over the budget or when the
   *     strategy saved little
   * @param exitCode the command's exit code
   */
  record Result(
      String conversation,
      String model,
      String strategy,
      String summarizer,
      BudgetOptions.Budget budget,
      String outcome,
      boolean changed,
      boolean withinBudget,
      long tokensBefore,
      long tokensAfter,
      int messagesBefore,
      int messagesAfter,
      long durationMs,
      String view,
      String reason,
      List<String> hints,
      List<String> limitations,
      List<String> invalid,
      int exitCode) {}

  /** A transcript read and chosen, to be written into a conversation directory. */
  private record PendingImport(
      ImportedConversation conversation, String format, ImportTarget.Fingerprint fingerprint) {}

  @Override
  public Integer call() throws Exception {
    Map<String, String> env = CompactorCommand.envOf(parent);
    ModelNames.check(budget.model, "--model"); // before anything is imported
    PrintWriter err = spec.commandLine().getErr();
    TokenizerWarmUp.start(file, budget.model);
    try (Progress progress = new Progress(err)) {
      ProviderRegistry registry = plugins.registry(env);
      ContextProvider provider = registry.get(strategy); // an unknown name fails before any import
      ImportTarget.Plan plan = null;
      PendingImport pending = null;
      ConversationInput input;
      Path shown;
      if (Files.isDirectory(file)) {
        input = ConversationInput.read(file, null);
        shown = file;
      } else {
        plan =
            ImportTarget.plan(
                file, out != null ? out : defaultDir(file), conversationName, reimport);
        shown = plan.dir();
        if (plan.reuse()) {
          input = ConversationInput.read(plan.dir(), null);
          progress.say("using " + plan.dir() + ", imported from the unchanged " + file);
        } else {
          ImportTarget.Fingerprint fp =
              plan.fingerprint() != null ? plan.fingerprint() : ImportTarget.Fingerprint.of(file);
          progress.say("reading " + file);
          ConversationInput read = ConversationInput.read(file, format).checked(reading.strict);
          ImportedConversation chosen = choose(read);
          pending = new PendingImport(chosen, read.format(), fp);
          input = new ConversationInput(file, read.format(), List.of(chosen), null);
          input.printNotes(err); // what the import skipped or repaired, before anything else
        }
      }
      Path temp = null;
      try (ConversationInput opened = input) {
        // Everything that can be refused is checked before anything is written.
        String model = budget.model(opened);
        ResolvedBudget b = budget.resolve(opened, model, env);
        CompactorConfig config =
            CompactorConfig.load(ConfigLocations.standard(Path.of("").toAbsolutePath(), env));
        TokenCounter counter = TokenCounters.forModel(model);
        Function<String, ContextProvider> providers = registry::get;
        String summarizerName = null;
        if (provider.name().equals(ManualCompaction.SUMMARIZE)) {
          Summarizer s = summarizer(model, env, config, counter);
          summarizerName = s.name();
          SummarizeProvider summarize = new SummarizeProvider(s);
          providers =
              name -> name.equals(ManualCompaction.SUMMARIZE) ? summarize : registry.get(name);
        }
        StoredConversation imported = null;
        try {
          StoredConversation conv = opened.store();
          if (pending != null) {
            temp = ImportTarget.temporary(plan.dir());
            imported = StoredConversation.open(temp);
            conv = imported;
            writeImport(conv, pending, progress, plan.dir());
            budget.persist(conv, b);
          }
          Result r =
              compact(conv, shown, providers, model, b, counter, config, summarizerName, progress);
          if (imported != null) {
            imported.close();
            imported = null;
            ImportTarget.commit(temp, plan);
            temp = null;
          }
          print(r);
          return r.exitCode();
        } finally {
          if (imported != null) {
            imported.close();
          }
        }
      } finally {
        ImportTarget.deleteQuietly(temp); // a command that failed leaves no import behind
      }
    }
  }

  private void writeImport(StoredConversation conv, PendingImport p, Progress progress, Path dir) {
    List<Message> messages = p.conversation().messages();
    conv.settings()
        .put(
            ImportTarget.SOURCE, file.toAbsolutePath().normalize() + "#" + p.conversation().name());
    conv.settings().put(ImportTarget.FORMAT, p.format());
    conv.settings().put(ImportTarget.SOURCE_SIZE, Long.toString(p.fingerprint().size()));
    conv.settings().put(ImportTarget.SOURCE_SHA256, p.fingerprint().sha256());
    progress.step(
        String.format("importing %,d messages (%s) into %s", messages.size(), p.format(), dir),
        () -> String.format("importing: writing %,d messages", messages.size()));
    // One write and one flush for the whole log, not one per message: nobody sees the temporary
    // directory until ImportTarget.commit renames it into place, so the messages only need to be
    // on the device by then.
    conv.appendAll(messages);
    progress.stop();
  }

  private Result compact(
      StoredConversation conv,
      Path shown,
      Function<String, ContextProvider> providers,
      String model,
      ResolvedBudget b,
      TokenCounter counter,
      CompactorConfig config,
      String summarizerName,
      Progress progress) {
    CompressionConfig base =
        CompressionConfig.builder().counter(counter).archive(new StoredArchive(conv)).build();
    PolicyContext ctx =
        new PolicyContext(
            model,
            b.tokens(),
            base,
            config.compactInstructions(),
            config.keepRecentTokens().orElse(PolicyContext.DEFAULT_KEEP_RECENT_TOKENS));
    ManualCompactor manual = new ManualCompactor(providers, Clock.systemUTC(), conv.journal());
    List<Message> before = conv.activeMessages();
    int messagesBefore = visible(before);
    long tokensBefore = counter.countMessages(before);
    progress.step(
        String.format(
            "compacting %,d messages (%,d tokens) with %s toward a budget of %,d",
            messagesBefore, tokensBefore, strategy, b.tokens()),
        () -> "compacting with " + strategy);
    CompactionOutcome o = manual.compact(conv, strategy, instructions, ctx);
    progress.stop();
    List<Violation> violations = new ViewValidator().validate(conv.activeMessages());
    Verdict v = verdict(o, tokensBefore, messagesBefore, conv.activeView().id());
    boolean within = v.tokensAfter() <= b.tokens();
    String outcome;
    String reason = v.reason();
    List<String> hints = new ArrayList<>();
    if (v.failed()) {
      outcome = "failed";
    } else if (!within) {
      outcome = "over-budget";
      if (reason == null) {
        reason =
            String.format(
                "%s reached %,d tokens, %,d over the budget of %,d",
                strategy, v.tokensAfter(), v.tokensAfter() - b.tokens(), b.tokens());
      } else if (!reason.contains("budget")) {
        reason =
            String.format(
                "%s (%,d tokens, %,d over the budget of %,d)",
                reason, v.tokensAfter(), v.tokensAfter() - b.tokens(), b.tokens());
      }
    } else {
      outcome = v.changed() ? "compacted" : "not-needed";
    }
    if (!within && v.shortfall().isPresent()) {
      Shortfall sf = v.shortfall().get();
      // One message: the reason says why, the hints say what would get further (the engine's
      // reason ends with the same remedies in its own words; they are not repeated).
      reason = shortfallReason(sf, strategy);
      hints.addAll(remedyHints(sf, b));
    } else if (!within || v.failed()) {
      hints.addAll(furtherHints(v.tokensAfter(), b));
    }
    // The engine's low-savings advice, unless a hint already names the strategy it suggests.
    v.suggestion()
        .map(CompactCommand::cliWording)
        .filter(h -> hints.stream().noneMatch(x -> sameAdvice(x, h)))
        .ifPresent(hints::add);
    List<String> invalid = violations.stream().map(Violation::toString).toList();
    int exit =
        !invalid.isEmpty()
            ? EXIT_INVALID
            : v.failed() ? EXIT_FAILED : within ? EXIT_OK : EXIT_OVER_BUDGET;
    return new Result(
        shown.toString(),
        model,
        strategy,
        summarizerName,
        BudgetOptions.Budget.of(b),
        outcome,
        v.changed(),
        within,
        tokensBefore,
        v.tokensAfter(),
        messagesBefore,
        v.messagesAfter(),
        v.durationMs(),
        v.view(),
        reason,
        hints,
        v.limitations(),
        invalid,
        exit);
  }

  /**
   * What an engine outcome says, in the terms of this command.
   *
   * @param reason the engine's reason (for an outcome that made no new view), in this command's
   *     wording, or null
   * @param suggestion the engine's advice, if any
   */
  private record Verdict(
      boolean changed,
      boolean failed,
      long tokensAfter,
      int messagesAfter,
      long durationMs,
      String view,
      String reason,
      List<String> limitations,
      Optional<String> suggestion,
      Optional<Shortfall> shortfall) {}

  private static Verdict verdict(
      CompactionOutcome o, long tokensBefore, int messagesBefore, String activeView) {
    if (o instanceof CompactionOutcome.Compacted c) {
      AppliedCompaction r = c.report();
      return new Verdict(
          true,
          false,
          r.tokensAfter(),
          r.messagesAfter(),
          r.duration().toMillis(),
          r.viewId(),
          c.shortfall().map(sf -> cliWording(sf.reason())).orElse(null),
          r.limitations(),
          c.suggestion(),
          c.shortfall());
    }
    String reason =
        o instanceof CompactionOutcome.Failed f
            ? f.reason()
            : o instanceof CompactionOutcome.Limited l
                ? l.reason()
                : o instanceof CompactionOutcome.NotNeeded n ? n.reason() : o.toString();
    return new Verdict(
        false,
        o instanceof CompactionOutcome.Failed,
        tokensBefore,
        messagesBefore,
        0,
        activeView,
        cliWording(reason),
        List.of(),
        Optional.empty(),
        o instanceof CompactionOutcome.Limited l ? Optional.of(l.shortfall()) : Optional.empty());
  }

  /**
   * Why the view stays over the budget, in this command's terms and without the remedies (they are
   * the hints). A budget below what the strategy keeps verbatim is said plainly, with the option:
   * no strategy run can go below that part, so only a larger {@code --context-budget} (or, for a
   * strategy that also keeps the newest user request, {@code summarize}) gets further.
   */
  static String shortfallReason(Shortfall sf, String strategy) {
    if (sf.cause() == Shortfall.Cause.PROTECTED_TOO_LARGE) {
      return String.format(
          "the budget of %,d tokens (--context-budget) is below the protected part: what %s keeps"
              + " verbatim (system prompt and head, pinned messages,%s the final step) is %,d"
              + " tokens; no %s run can make the view smaller than that",
          sf.budget(),
          strategy,
          strategy.equals(ManualCompaction.SUMMARIZE) ? "" : " the newest user request,",
          sf.protectedTokens(),
          strategy);
    }
    String reason = sf.reason();
    String remedies =
        "; "
            + sf.remedies().stream()
                .map(Shortfall.Remedy::describe)
                .collect(java.util.stream.Collectors.joining(", or "));
    if (reason.endsWith(remedies)) {
      reason = reason.substring(0, reason.length() - remedies.length());
    }
    return cliWording(reason);
  }

  /** Whether two hints give the same advice: both point to the same {@code --strategy}. */
  private static boolean sameAdvice(String a, String b) {
    java.util.regex.Matcher ma = STRATEGY_HINT.matcher(a);
    java.util.regex.Matcher mb = STRATEGY_HINT.matcher(b);
    return a.equals(b) || (ma.find() && mb.find() && ma.group(1).equals(mb.group(1)));
  }

  private static final java.util.regex.Pattern STRATEGY_HINT =
      java.util.regex.Pattern.compile("--strategy ([A-Za-z][\\w-]*)");

  /** What would get the view further toward (or within) the budget, as options of this command. */
  private List<String> furtherHints(long tokensNow, ResolvedBudget b) {
    List<String> hints = new ArrayList<>();
    if (!strategy.equals(ManualCompaction.SUMMARIZE)) {
      hints.add(
          "--strategy summarize replaces the older part with a checkpoint summary and usually"
              + " gets further");
    }
    long usable = b.window() - b.maxOutput() - 1000L;
    if (tokensNow <= usable) {
      hints.add(
          String.format("--context-budget %d (or more) holds the view as it is now", tokensNow));
    } else {
      hints.add(
          String.format(
              "the view (%,d tokens) is larger than what %,d-token window leaves for input (%,d);"
                  + " a model with a larger window (--model) is needed to send it whole",
              tokensNow, b.window(), usable));
    }
    return hints;
  }

  /** The engine's remedies for a shortfall, as options of this command. */
  private List<String> remedyHints(Shortfall shortfall, ResolvedBudget b) {
    List<String> hints = new ArrayList<>();
    long usable = b.window() - b.maxOutput() - 1000L;
    for (Shortfall.Remedy r : shortfall.remedies()) {
      String h;
      if (r instanceof Shortfall.Remedy.OtherStrategy o) {
        h =
            o.strategy().equals(ManualCompaction.SUMMARIZE)
                ? "--strategy summarize replaces the older part with a checkpoint summary and"
                    + " usually gets further"
                : "--strategy " + o.strategy() + " may get further";
      } else if (r instanceof Shortfall.Remedy.LargerBudget l
          && l.tokens() <= usable
          && shortfall.cause() == Shortfall.Cause.PROTECTED_TOO_LARGE) {
        h =
            String.format(
                "--context-budget %d or more: the protected part alone is that large", l.tokens());
      } else if (r instanceof Shortfall.Remedy.LargerBudget l && l.tokens() <= usable) {
        h =
            String.format(
                "--context-budget %d (or more) holds the view %s can reach", l.tokens(), strategy);
      } else {
        long need = r instanceof Shortfall.Remedy.LargerBudget l ? l.tokens() : shortfall.tokens();
        h =
            String.format(
                "the view (%,d tokens) is larger than what %,d-token window leaves for input"
                    + " (%,d); a model with a larger window (--model) is needed to send it whole",
                need, b.window(), usable);
      }
      if (!hints.contains(h)) {
        hints.add(h);
      }
    }
    return hints;
  }

  /** The engine speaks of the chat command ({@code /compact summarize}); this is the CLI. */
  static String cliWording(String text) {
    if (text == null) {
      return null;
    }
    // "…; try /compact summarize": the hints say what would get further, in this command's terms.
    String t = text.replaceAll(";? *try /compact [A-Za-z][\\w-]*\\.?$", "");
    return t.replaceAll("/compact ([A-Za-z][\\w-]*)", "--strategy $1");
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

  private static int visible(List<Message> messages) {
    return (int) messages.stream().filter(m -> !m.uiOnly()).count();
  }

  private void print(Result r) throws Exception {
    PrintWriter w = spec.commandLine().getOut();
    if (json) {
      w.println(JSON.writeValueAsString(r));
    } else {
      w.printf(
          "%s: %s with %s%s%n",
          r.conversation(),
          r.outcome(),
          r.strategy(),
          r.summarizer() != null ? " (summarizer " + r.summarizer() + ")" : "");
      w.printf(
          "  tokens   %,d → %,d (budget %,d from %s)%s%n",
          r.tokensBefore(),
          r.tokensAfter(),
          r.budget().tokens(),
          r.budget().describeSource(),
          r.withinBudget() ? "" : ", over budget");
      w.printf(
          "  messages %d → %d; view %s; %s ms%n",
          r.messagesBefore(), r.messagesAfter(), r.view(), r.durationMs());
      if (r.reason() != null) {
        w.printf("  %s%n", r.reason());
      }
      for (String l : r.limitations()) {
        w.printf("  limitation: %s%n", l);
      }
      for (String h : r.hints()) {
        w.printf("  to get further: %s%n", h);
      }
      w.printf(
          "  invariants %s%n",
          r.invalid().isEmpty() ? "valid" : r.invalid().size() + " violation(s): " + r.invalid());
      if (r.exitCode() == EXIT_OVER_BUDGET) {
        w.printf("  exit code %d: not within the budget%n", EXIT_OVER_BUDGET);
      }
    }
    w.flush();
  }
}
