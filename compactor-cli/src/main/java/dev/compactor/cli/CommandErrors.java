package dev.compactor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.model.AuthenticationException;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.UnknownModelException;
import dev.compactor.log.imports.ImportException;
import dev.compactor.log.store.ConversationLockedException;
import dev.compactor.log.store.LogFormatException;
import dev.compactor.log.store.LogIOException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * How a failed command reports its error: always a line on standard error, and — for a command that
 * prints JSON ({@code --json} given, or a {@code task} command) — also {@code {"error": {"code",
 * "message"}}} on standard output, so a script reading the JSON sees the failure.
 */
final class CommandErrors {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private CommandErrors() {}

  /**
   * The error codes by exception type, most specific first: the first type the error is an instance
   * of gives its code.
   */
  private static final List<Map.Entry<Class<? extends Throwable>, String>> CODES =
      List.of(
          Map.entry(CommandLine.ParameterException.class, "usage"),
          Map.entry(InvalidSettingException.class, "invalid_setting"),
          Map.entry(UnknownModelException.class, "unknown_model"),
          Map.entry(AuthenticationException.class, "authentication"),
          Map.entry(ModelException.class, "model_error"),
          Map.entry(ImportException.class, "import_failed"),
          Map.entry(ConversationLockedException.class, "locked"),
          Map.entry(LogFormatException.class, "corrupt_log"),
          Map.entry(LogIOException.class, "io_error"),
          Map.entry(IOException.class, "io_error"),
          Map.entry(UncheckedIOException.class, "io_error"),
          Map.entry(IllegalArgumentException.class, "invalid_argument"));

  /** The error's code in JSON output: a stable lower-case word for the kind of failure. */
  static String code(Throwable e) {
    for (Map.Entry<Class<? extends Throwable>, String> c : CODES) {
      if (c.getKey().isInstance(e)) {
        return c.getValue();
      }
    }
    return "error";
  }

  /** The message to show: the exception's own, or its kind when it has none. */
  static String message(Throwable e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      Throwable c = e.getCause();
      if (c != null && c.getMessage() != null && !c.getMessage().isBlank()) {
        return c.getMessage();
      }
      return "unexpected error (" + e.getClass().getSimpleName() + ", no message)";
    }
    return m;
  }

  /**
   * Whether {@code cl}'s command answers in JSON for these arguments: it has a boolean {@code
   * --json} option that was given, or it is a {@code task} subcommand (whose output is always
   * JSON).
   */
  static boolean wantsJson(CommandLine cl, List<String> args) {
    if (cl == null) {
      return false;
    }
    CommandLine parent = cl.getParent();
    if (parent != null && parent.getCommandName().equals("task")) {
      return true;
    }
    OptionSpec o = cl.getCommandSpec().findOption("--json");
    if (o == null || (o.type() != boolean.class && o.type() != Boolean.class)) {
      return false;
    }
    return args.contains("--json");
  }

  /** Prints {@code {"error": {"code", "message"}}} on {@code out}. */
  static void printJson(PrintWriter out, String code, String message) {
    ObjectNode o = JSON.createObjectNode();
    o.putObject("error").put("code", code).put("message", message);
    try {
      out.println(JSON.writeValueAsString(o));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    out.flush();
  }
}
