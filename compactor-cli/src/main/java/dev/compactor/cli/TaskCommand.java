package dev.compactor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.ChatModelFactory;
import dev.compactor.chat.ChatTaskRequest;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.wire.json.Utf8;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code compactor task}: chat tasks from the command line — one call, the stored chat, an
 * on-demand summary. Results and errors are printed as JSON on standard output; a failed call exits
 * with 1 (after also naming the error on standard error).
 */
@Command(
    name = "task",
    mixinStandardHelpOptions = true,
    description = {
      "Chat tasks: calls on a stored chat with sticky compaction settings (see"
          + " docs/chat-tasks.md)."
    },
    subcommands = {TaskCommand.Call.class, TaskCommand.Show.class, TaskCommand.Summarize.class})
final class TaskCommand implements Runnable {
  @Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Which chat, in which database. */
  static final class ChatOptions {
    @Spec(Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec mixee;

    @Option(names = "--chat", required = true, paramLabel = "ID", description = "The chat id.")
    String chat;

    @Option(
        names = "--tenant",
        paramLabel = "T",
        defaultValue = ChatKey.DEFAULT_TENANT,
        description = "The tenant (default: ${DEFAULT-VALUE}).")
    String tenant;

    @Mixin ChatDatabaseOption database = new ChatDatabaseOption();

    ChatKey key() {
      try {
        return ChatKey.of(tenant, chat);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            mixee.commandLine(), "--chat/--tenant: " + e.getMessage());
      }
    }

    ChatStore open() {
      return database.open(System.getenv());
    }

    /** The store, for reading only: nothing is created, migrated or written. */
    ChatStore openReadOnly() {
      return database.openReadOnly(System.getenv());
    }
  }

  /** How model clients are made. */
  static final class ModelOptions {
    @Option(
        names = "--base-url",
        paramLabel = "URL",
        description =
            "Base URL of an OpenAI-compatible model server (e.g. http://localhost:8000/v1).")
    String baseUrl;

    @Option(names = "--timeout", paramLabel = "T", description = Timeouts.DESCRIPTION)
    String timeout;

    ChatModelFactory factory() {
      return ChatModelFactory.standard(
          ChatModelOptions.builder()
              .baseUrl(baseUrl)
              .timeout(Timeouts.parse(timeout, "--timeout"))
              .build());
    }
  }

  /** Prints a failed call's JSON and message; returns the exit code. */
  static int failed(CommandLine.Model.CommandSpec spec, ChatTaskException e) {
    spec.commandLine().getOut().println(ChatTaskJson.pretty(ChatTaskJson.error(e)));
    spec.commandLine().getOut().flush();
    spec.commandLine()
        .getErr()
        .println("compactor: " + e.code().wireName() + ": " + e.getMessage());
    return 1;
  }

  static void print(CommandLine.Model.CommandSpec spec, JsonNode json) {
    spec.commandLine().getOut().println(ChatTaskJson.pretty(json));
    spec.commandLine().getOut().flush();
  }

  @Command(
      name = "call",
      mixinStandardHelpOptions = true,
      description = {
        "Performs one chat task call from the JSON a client would send and prints the result.",
        "Example request: {\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\","
            + " \"content\": \"Hi\"}], \"compaction\": {\"summary\": {\"activation\":"
            + " {\"message_count\": 60}}}}"
      })
  static final class Call implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;
    @Mixin ChatOptions chat = new ChatOptions();
    @Mixin ModelOptions models = new ModelOptions();

    @Option(
        names = "--request",
        required = true,
        paramLabel = "FILE",
        description = "The request JSON file, or - for standard input.")
    String request;

    @Override
    public Integer call() throws IOException {
      ChatKey key = chat.key();
      String json = readRequest();
      try (ChatStore store = chat.open()) {
        ChatTaskService service = ChatTaskService.builder(store).models(models.factory()).build();
        try {
          ChatTaskRequest req = ChatTaskJson.parseRequest(json);
          print(spec, ChatTaskJson.write(service.call(key, req)));
          return 0;
        } catch (ChatTaskException e) {
          return failed(spec, e);
        }
      }
    }

    private String readRequest() throws IOException {
      byte[] bytes;
      if (request.equals("-")) {
        InputStream in = System.in;
        bytes = in.readAllBytes();
      } else {
        try {
          bytes = Files.readAllBytes(Path.of(request));
        } catch (NoSuchFileException e) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--request: no such file: " + request);
        }
      }
      return utf8(bytes, request.equals("-") ? "standard input" : request);
    }

    /** {@code bytes} as UTF-8, or an error naming {@code where} and the offset of the bad byte. */
    private String utf8(byte[] bytes, String where) {
      try {
        return Utf8.decode(bytes, "--request " + where);
      } catch (CharacterCodingException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Prints a stored chat: its messages, settings and summary records.")
  static final class Show implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;
    @Mixin ChatOptions chat = new ChatOptions();

    @Override
    public Integer call() {
      ChatKey key = chat.key();
      try (ChatStore store = chat.openReadOnly()) {
        ChatTaskService service =
            ChatTaskService.builder(store)
                .models(
                    name -> {
                      throw new IllegalStateException("show makes no model calls");
                    })
                .build();
        return service
            .show(key)
            .map(
                v -> {
                  print(spec, ChatTaskJson.write(v));
                  return 0;
                })
            .orElseGet(
                () ->
                    failed(
                        spec,
                        new ChatTaskException(
                            ChatTaskException.Code.NOT_FOUND,
                            "chat " + key + " does not exist in " + store.describe())));
      }
    }
  }

  @Command(
      name = "summarize",
      mixinStandardHelpOptions = true,
      description =
          "Summarizes a stored chat now, with its summary compaction settings (their defaults"
              + " when it has none), and prints what was done.")
  static final class Summarize implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;
    @Mixin ChatOptions chat = new ChatOptions();
    @Mixin ModelOptions models = new ModelOptions();

    @Override
    public Integer call() {
      ChatKey key = chat.key();
      try (ChatStore store = chat.open()) {
        ChatTaskService service = ChatTaskService.builder(store).models(models.factory()).build();
        try {
          print(spec, ChatTaskJson.write(service.summarize(key)));
          return 0;
        } catch (ChatTaskException e) {
          return failed(spec, e);
        }
      }
    }
  }
}
