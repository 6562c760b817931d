package dev.compactor.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * The exit codes of every command, shown under "Exit codes:" in its {@code --help} (and listed in
 * the README). 2 is always an error: a bad option or value (picocli's usage errors too), an
 * unreadable or refused input, named in a one-line message on stderr.
 */
final class ExitCodes {
  private ExitCodes() {}

  static final String ERROR =
      "an error: a bad option or value, an unreadable or refused input (the message names it)";

  /** Exit code and meaning, per command path (e.g. {@code "task call"}). */
  static Map<String, Map<String, String>> all() {
    Map<String, Map<String, String>> m = new LinkedHashMap<>();
    m.put("compactor", codes("0", "help or version printed", "2", ERROR + "; or no such command"));
    m.put(
        "inspect",
        codes(
            "0", "the conversation is valid",
            "1", "it has invariant violations (listed)",
            "2", ERROR));
    m.put(
        "compact",
        codes(
            "" + CompactCommand.EXIT_OK,
            "the view is valid and within the budget (compacted, or nothing was needed)",
            "" + CompactCommand.EXIT_INVALID,
            "the view breaks an invariant (the violations are listed)",
            "" + CompactCommand.EXIT_ERROR,
            ERROR + "; nothing was changed or left behind",
            "" + CompactCommand.EXIT_FAILED,
            "the strategy failed (e.g. the summary's model call); the view is unchanged",
            "" + CompactCommand.EXIT_OVER_BUDGET,
            "not within the budget: the view is valid but still over it; the reason and what"
                + " would get further (--strategy, --context-budget) are printed"));
    m.put(
        "chat",
        codes(
            "" + ChatCommand.EXIT_OK,
            "ended (/exit or the end of the input); --list listed",
            "" + ChatCommand.EXIT_TURN_FAILED,
            "ended, and a model call failed on the way (its message is kept)",
            "" + ChatCommand.EXIT_ERROR,
            ERROR + " (e.g. no such conversation, no API key)"));
    m.put("keys", codes("0", "help printed", "2", ERROR + "; or no such subcommand"));
    m.put("keys create", codes("0", "created; the key is printed once", "2", ERROR));
    m.put("keys list", codes("0", "listed", "2", ERROR + " (e.g. no database there)"));
    m.put(
        "keys revoke",
        codes(
            "0",
            "revoked (or it already was)",
            "" + KeysCommand.EXIT_NO_SUCH_KEY,
            "no key has that prefix",
            "2",
            ERROR));
    m.put("providers", codes("0", "listed", "2", ERROR + " (a plugin path entry or a plugin)"));
    m.put("replay", codes("0", "replayed and reported", "2", ERROR));
    m.put("sample", codes("0", "written", "2", ERROR));
    m.put("demo", codes("0", "played and reported", "2", ERROR));
    m.put(
        "serve",
        codes(
            "0",
            "stopped on SIGTERM or Ctrl-C after in-flight calls finished",
            "2",
            ERROR + "; or the address could not be bound"));
    m.put("task", codes("0", "help printed", "2", ERROR + "; or no such subcommand"));
    for (String t : List.of("task call", "task show", "task summarize")) {
      m.put(
          t,
          codes(
              "0", "done; the result is printed as JSON",
              "1", "the task failed: its error is printed as JSON on stdout ({\"error\": …})",
              "2", ERROR));
    }
    return m;
  }

  private static Map<String, String> codes(String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return m;
  }

  /** Adds the exit code list to the help of {@code root} and its subcommands. */
  static void document(CommandLine root) {
    Map<String, Map<String, String>> all = all();
    document(root, "", all);
  }

  private static void document(
      CommandLine cl, String prefix, Map<String, Map<String, String>> all) {
    String name = cl.getCommandName();
    String path =
        prefix.isEmpty() ? name : (prefix.equals("compactor") ? name : prefix + " " + name);
    Map<String, String> codes = all.get(path);
    if (codes != null) {
      cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(codes);
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      document(sub, path, all);
    }
  }
}
