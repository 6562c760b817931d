package dev.compactor.cli;

import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatStores;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.server.CompactorServer;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.Upstream;
import dev.compactor.server.UpstreamModels;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code compactor serve}: the HTTP service (chat tasks over HTTP). */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the HTTP service: chat tasks over HTTP (POST /v1/chats/{chat_id}/calls and the"
          + " routes of docs/server.md), with /healthz, /readyz and /openapi.json. Stops"
          + " gracefully on SIGTERM or Ctrl-C: no new connections, in-flight calls finish.",
      "Without API keys in the store (compactor keys create) it runs in single-tenant local mode"
          + " and binds only loopback addresses."
    })
final class ServeCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @ParentCommand CompactorCommand parent;

  @Option(
      names = "--host",
      paramLabel = "ADDR",
      description = "The address to bind (default ${DEFAULT-VALUE}).",
      defaultValue = ServerSettings.DEFAULT_HOST)
  String host;

  @Option(
      names = "--port",
      paramLabel = "N",
      description = "The port (default ${DEFAULT-VALUE}; 0 picks a free one).",
      defaultValue = "" + ServerSettings.DEFAULT_PORT)
  int port;

  @Option(
      names = "--db",
      paramLabel = "URL",
      description = {
        "The store: a SQLite file path or sqlite:PATH (default $XDG_DATA_HOME/compactor/chats.db,"
            + " else ~/.local/share/compactor/chats.db), or a PostgreSQL URL"
            + " (postgresql://user@host/db) for several instances on one database."
      })
  String db;

  @Option(
      names = "--upstream",
      paramLabel = "NAME=URL",
      description = {
        "A named model provider (repeatable): models NAME/… go to URL. openai and anthropic speak"
            + " their APIs (default: the public endpoints, keys from OPENAI_API_KEY /"
            + " ANTHROPIC_API_KEY); any other name is an OpenAI-compatible server.",
      })
  List<String> upstreams = new ArrayList<>();

  @Option(
      names = "--max-body",
      paramLabel = "BYTES",
      description = "Largest request body accepted (default ${DEFAULT-VALUE}); larger is 413.",
      defaultValue = "" + ServerSettings.DEFAULT_MAX_BODY_BYTES)
  long maxBody;

  @Option(names = "--timeout", paramLabel = "T", description = Timeouts.DESCRIPTION)
  String timeout;

  @Option(
      names = "--log-content",
      description = "Put request bodies (message content) in the request log; for debugging only.")
  boolean logContent;

  @Override
  public Integer call() throws InterruptedException {
    ServerSettings settings = settings();
    Map<String, String> env = CompactorCommand.envOf(parent);
    ChatModelOptions options =
        ChatModelOptions.builder().timeout(Timeouts.parse(timeout, "--timeout")).build();
    PrintWriter err = spec.commandLine().getErr();
    ChatStore store = ChatStores.open(where(env));
    CompactorServer server;
    try {
      Tenants tenants = Tenants.localMode();
      ChatTaskService service =
          ChatTaskService.builder(store)
              .models(new UpstreamModels(settings.upstreams(), options, env))
              .build();
      PrintStream log = new PrintStream(System.err, true, StandardCharsets.UTF_8);
      try {
        server = CompactorServer.start(settings, service, tenants, log);
      } catch (IllegalArgumentException | CompactorServer.ServerStartException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      err.println("compactor serve: listening on " + server.baseUrl());
      err.println("compactor serve: store " + store.describe());
      err.println("compactor serve: auth " + tenants.describe());
      err.println(
          "compactor serve: upstreams "
              + (settings.upstreams().isEmpty()
                  ? "none configured (public OpenAI/Anthropic endpoints, keys from the environment)"
                  : String.join(", ", settings.upstreams().keySet())));
      err.flush();
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    CompactorServer running = server;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  err.println(
                      "compactor serve: stopping: no new connections; in-flight calls get up to "
                          + settings.shutdownGrace().toSeconds()
                          + " s");
                  err.flush();
                  try {
                    running.close();
                  } finally {
                    store.close();
                    err.println("compactor serve: stopped");
                    err.flush();
                    stopped.countDown();
                  }
                },
                "compactor-serve-shutdown"));
    stopped.await();
    return 0;
  }

  private ServerSettings settings() {
    ServerSettings.Builder b = ServerSettings.builder().host(host).port(port);
    try {
      b.maxBodyBytes(maxBody).logContent(logContent);
      for (String u : upstreams) {
        b.upstream(upstream(u));
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private Upstream upstream(String spec) {
    try {
      return Upstream.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--upstream " + e.getMessage());
    }
  }

  private String where(Map<String, String> env) {
    return db != null
        ? db
        : ChatStores.defaultSqliteFile(env, System.getProperty("user.home")).toString();
  }
}
