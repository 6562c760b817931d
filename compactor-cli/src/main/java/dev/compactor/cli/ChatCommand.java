package dev.compactor.cli;

import dev.compactor.cli.config.CompactorConfig;
import dev.compactor.cli.config.ConfigLocations;
import dev.compactor.core.Compactor;
import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.summary.ExtractiveSummarizer;
import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.log.store.ConversationLockedException;
import dev.compactor.log.store.StoredArchive;
import dev.compactor.log.store.StoredConversation;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code compactor chat}: an interactive chat with any model, kept within its context budget. */
@Command(
    name = "chat",
    mixinStandardHelpOptions = true,
    description = {
      "An interactive chat with a model (--model provider/model, --base-url for any"
          + " OpenAI-compatible server; keys from OPENAI_API_KEY / ANTHROPIC_API_KEY), the answer"
          + " streamed as it arrives. After every turn the automatic policy runs: the 90 %%"
          + " reminder once per view, compaction at the budget, overflow recovery when the"
          + " provider still refuses. /help lists the commands (/compact, /context, /view,"
          + " /recover, /budget, /model, /exit).",
      "Each chat is a conversation directory under $XDG_DATA_HOME/compactor/conversations"
          + " (default ~/.local/share/compactor/conversations); --resume NAME continues one,"
          + " --list lists them. Not on a terminal (a pipe, a script), lines are read one by one:"
          + " answers and command output on stdout, status lines on stderr, no escape sequences."
    })
final class ChatCommand implements Callable<Integer> {
  static final int EXIT_OK = 0;
  static final int EXIT_TURN_FAILED = 1;
  static final int EXIT_ERROR = 2;

  @Spec CommandLine.Model.CommandSpec spec;

  @ParentCommand CompactorCommand parent;

  @Mixin BudgetOptions budget = new BudgetOptions();

  @Option(
      names = "--resume",
      paramLabel = "NAME",
      description =
          "Continue the conversation NAME (--list shows them), with its model, server and budget"
              + " unless given again.")
  String resume;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description = "Name of a new conversation (default chat-yyyyMMdd-HHmmss).")
  String name;

  @Option(names = "--list", description = "List the stored conversations, newest first.")
  boolean list;

  @Option(
      names = "--summarizer",
      paramLabel = "S",
      description =
          "Who writes summaries (/compact summarize and the automatic summary): model (the chat's"
              + " model, the default) or extractive (offline, no model call).")
  String summarizer;

  @Option(
      names = "--plain",
      description =
          "Read plain lines even on a terminal: no line editing, no prompt, no escape sequences.")
  boolean plain;

  private final Clock clock = Clock.systemUTC();

  /** Where plain lines are read from (standard input; a test may set another). */
  java.io.InputStream stdin = System.in;

  /** The model of the engine in use (null before the first). */
  private String current;

  @Override
  public Integer call() throws Exception {
    Map<String, String> env = CompactorCommand.envOf(parent);
    Path root = ChatConversations.root(env);
    if (list) {
      return list(root);
    }
    if (resume != null && name != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--resume and --name cannot be combined: resume one, or name a new one");
    }
    ModelNames.check(budget.model, "--model");
    checkSummarizer();
    String chat;
    boolean resumed = resume != null;
    if (resumed) {
      chat = ChatConversations.checkName(resume, "--resume");
      if (!ChatConversations.exists(root.resolve(chat))) {
        throw new CompactorException(
            "no conversation named \""
                + chat
                + "\" in "
                + root
                + " (compactor chat --list shows them)");
      }
    } else if (name != null) {
      chat = ChatConversations.checkName(name, "--name");
      if (Files.exists(root.resolve(chat))) {
        throw new CompactorException(
            "a conversation named \""
                + chat
                + "\" already exists in "
                + root
                + "; continue it with --resume "
                + chat);
      }
    } else {
      chat = ChatConversations.newName(root, clock);
    }
    Path dir = root.resolve(chat);
    StoredConversation conv;
    try {
      conv = StoredConversation.open(dir);
    } catch (ConversationLockedException e) {
      throw new CompactorException(
          "conversation \"" + chat + "\" is open in another compactor chat (" + dir + ")", e);
    }
    boolean empty = true;
    try {
      String model = initialModel(conv);
      ChatRepl.Engines engines = (m, b) -> engine(conv, m, b, env);
      ChatRepl.Engine engine = engines.create(model, null);
      try (ChatConsole console = console(root)) {
        ChatRepl repl = new ChatRepl(console, conv, chat, engine, engines, clock);
        console.status(repl.banner(resumed, dir));
        int code = repl.run();
        empty = conv.master().size() == 0;
        if (!empty) {
          console.status(
              "[saved in " + dir + "; continue with: compactor chat --resume " + chat + "]");
        }
        return code;
      }
    } finally {
      conv.close();
      if (empty && !resumed) {
        // A new chat that could not start, or where nothing was said, leaves nothing behind.
        deleteQuietly(dir);
      }
    }
  }

  /** The model: {@code --model}, else the one the conversation last used, else the default. */
  private String initialModel(StoredConversation conv) {
    if (budget.modelGiven()) {
      return ModelNames.check(budget.model, "--model");
    }
    java.util.Optional<String> saved = conv.settings().get(ChatConversations.MODEL_KEY);
    if (saved.isEmpty()) {
      return BudgetOptions.DEFAULT_MODEL;
    }
    // The server and API it was talking to come along, unless given again.
    if (!budget.baseUrlGiven()) {
      budget.baseUrl = conv.settings().get(ChatConversations.BASE_URL_KEY).orElse(null);
      if (budget.api == null) {
        budget.api = conv.settings().get(ChatConversations.API_KEY).orElse(null);
      }
    }
    return saved.get();
  }

  /**
   * The engine for {@code model}: budget (a new one validated, then persisted), client, summarizer
   * and policy. Switching to a model of another provider leaves the base URL of the previous one
   * behind.
   */
  private ChatRepl.Engine engine(
      StoredConversation conv, String model, String newBudget, Map<String, String> env) {
    String oldBaseUrl = budget.baseUrl;
    String oldApi = budget.api;
    String oldBudget = budget.contextBudget;
    if (current != null && !provider(current).equals(provider(model))) {
      budget.baseUrl = null;
      budget.api = null;
    }
    if (newBudget != null) {
      budget.contextBudget = newBudget;
    }
    try {
      ConversationInput input =
          new ConversationInput(conv.directory(), ConversationInput.STORE_FORMAT, List.of(), conv);
      ChatModel client =
          budget.chatModel(
              model,
              env,
              ", or pass --base-url for an OpenAI-compatible server (none is needed for a local"
                  + " one)");
      ResolvedBudget b = budget.resolve(input, model, env);
      CompactorConfig config =
          CompactorConfig.load(ConfigLocations.standard(Path.of("").toAbsolutePath(), env));
      TokenCounter counter = TokenCounters.forModel(model);
      Summarizer s = summarizer(model, client, config, counter, env);
      long keepRecent = config.keepRecentTokens().orElse(PolicyContext.DEFAULT_KEEP_RECENT_TOKENS);
      StoredArchive archive = new StoredArchive(conv);
      Compactor compactor =
          Compactor.forModel(model)
              .environment(env)
              .budget(BudgetSetting.of(Long.toString(b.tokens()), b.source()))
              .contextWindow(b.window())
              .maxOutputTokens(b.maxOutput())
              .counter(counter)
              .summarizer(s)
              .archive(archive)
              .listener(conv.journal())
              .clock(clock)
              .instructions(config.compactInstructions().orElse(null))
              .keepRecentTokens(keepRecent)
              .build();
      PolicyContext ctx =
          new PolicyContext(
              model,
              b.tokens(),
              CompressionConfig.builder().counter(counter).archive(archive).build(),
              config.compactInstructions(),
              keepRecent);
      conv.settings().put(ChatConversations.MODEL_KEY, model);
      putOrRemove(conv, ChatConversations.BASE_URL_KEY, budget.baseUrl);
      putOrRemove(conv, ChatConversations.API_KEY, budget.api);
      current = model;
      return new ChatRepl.Engine(model, client, b, counter, compactor.session(conv), ctx, s.name());
    } catch (RuntimeException e) {
      budget.baseUrl = oldBaseUrl;
      budget.api = oldApi;
      budget.contextBudget = oldBudget;
      throw e;
    }
  }

  private static void putOrRemove(StoredConversation conv, String key, String value) {
    if (value == null || value.isBlank()) {
      conv.settings().remove(key);
    } else {
      conv.settings().put(key, value.strip());
    }
  }

  private static String provider(String model) {
    int slash = model.indexOf('/');
    return slash < 0 ? model : model.substring(0, slash).toLowerCase(Locale.ROOT);
  }

  private void checkSummarizer() {
    if (summarizer != null) {
      String s = summarizer.strip().toLowerCase(Locale.ROOT);
      if (!s.equals("model") && !s.equals("extractive")) {
        throw new InvalidSettingException(
            "summarizer", summarizer, "--summarizer", "must be model or extractive");
      }
    }
  }

  private Summarizer summarizer(
      String model,
      ChatModel client,
      CompactorConfig config,
      TokenCounter counter,
      Map<String, String> env) {
    if (summarizer != null && summarizer.strip().equalsIgnoreCase("extractive")) {
      return new ExtractiveSummarizer();
    }
    ModelInfo info = config.catalog(ModelCatalog.builtIn()).lookup(model, env);
    ModelSummarizer.Builder b =
        ModelSummarizer.builder(client).contextWindow(info.contextWindow()).counter(counter);
    if (info.maxOutputTokens() > 0) {
      b.maxOutputTokens(
          Math.min(ModelSummarizer.DEFAULT_MAX_OUTPUT_TOKENS, info.maxOutputTokens()));
    }
    return b.build();
  }

  private ChatConsole console(Path root) {
    if (!plain && stdin == System.in && System.console() != null) {
      return TerminalConsole.open(ChatConversations.historyFile(root), ChatRepl.COMMANDS);
    }
    return new ChatConsole.Plain(
        new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8)),
        spec.commandLine().getOut(),
        spec.commandLine().getErr());
  }

  private int list(Path root) {
    PrintWriter out = spec.commandLine().getOut();
    List<ChatConversations.Entry> all = ChatConversations.list(root);
    if (all.isEmpty()) {
      out.printf("no conversations in %s yet (compactor chat starts one)%n", root);
      out.flush();
      return EXIT_OK;
    }
    DateTimeFormatter when =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());
    int width = Math.max(4, all.stream().mapToInt(e -> e.name().length()).max().orElse(4));
    out.printf("%d conversation(s) in %s, newest first%n", all.size(), root);
    out.printf(
        Locale.ROOT,
        "  %-" + width + "s  %-16s  %8s  %5s  %-24s  %s%n",
        "NAME",
        "UPDATED",
        "MESSAGES",
        "VIEWS",
        "MODEL",
        "FIRST MESSAGE");
    for (ChatConversations.Entry e : all) {
      out.printf(
          Locale.ROOT,
          "  %-" + width + "s  %-16s  %8d  %5d  %-24s  %s%n",
          e.name(),
          when.format(e.updated()),
          e.messages(),
          e.views(),
          e.model() == null ? "-" : e.model(),
          e.title());
    }
    out.printf("continue one with: compactor chat --resume NAME%n");
    out.flush();
    return EXIT_OK;
  }

  private static void deleteQuietly(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // Best effort: an empty conversation directory is harmless.
    }
  }
}
