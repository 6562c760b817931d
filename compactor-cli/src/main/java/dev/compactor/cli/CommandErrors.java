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

  /** The error's code in JSON output: a stable lower-case word for the kind of failure. */
  static String code(Throwable e) {
    if (e instanceof CommandLine.ParameterException) {
      return "usage";
    }
    if (e instanceof InvalidSettingException) {
      return "invalid_setting";
    }
    if (e instanceof UnknownModelException) {
      return "unknown_model";
    }
    if (e instanceof AuthenticationException) {
      return "authentication";
    }
    if (e instanceof ModelException) {
      return "model_error";
    }
    if (e instanceof ImportException) {
      return "import_failed";
    }
    if (e instanceof ConversationLockedException) {
      return "locked";
    }
    if (e instanceof LogFormatException) {
      return "corrupt_log";
    }
    if (e instanceof LogIOException
        || e instanceof IOException
        || e instanceof UncheckedIOException) {
      return "io_error";
    }
    if (e instanceof IllegalArgumentException) {
      return "invalid_argument";
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
