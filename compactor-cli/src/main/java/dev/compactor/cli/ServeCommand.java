package dev.compactor.cli;

import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatStores;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.server.CompactorServer;
import dev.compactor.server.ServerMetrics;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.UpstreamModels;
import dev.compactor.server.proxy.ProxyStore;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
      description =
          "The address to bind (else $COMPACTOR_HOST, else [server] host, else "
              + ServerSettings.DEFAULT_HOST
              + ").")
  String host;

  @Option(
      names = "--port",
      paramLabel = "N",
      description =
          "The port; 0 picks a free one (else $COMPACTOR_PORT, else [server] port, else "
              + ServerSettings.DEFAULT_PORT
              + ").")
  String port;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "A configuration file to read instead of ./compactor.toml (the user's"
              + " ~/.config/compactor/config.toml is read too, under it).")
  Path config;

  @Option(
      names = "--db",
      paramLabel = "URL",
      description = {
        "The store: a SQLite file path or sqlite:PATH, or a PostgreSQL URL"
            + " (postgresql://user@host/db) for several instances on one database (else"
            + " $COMPACTOR_DB, else [server] db, else $XDG_DATA_HOME/compactor/chats.db or"
            + " ~/.local/share/compactor/chats.db)."
      })
  String db;

  @Option(
      names = "--upstream",
      paramLabel = "NAME=URL",
      description = {
        "A named model provider (repeatable): models NAME/… go to URL. openai and anthropic speak"
            + " their APIs (default: the public endpoints, keys from OPENAI_API_KEY /"
            + " ANTHROPIC_API_KEY); any other name is an OpenAI-compatible server. Also"
            + " [upstreams.NAME] base_url and api_key_env in the configuration files.",
      })
  List<String> upstreams = new ArrayList<>();

  @Option(
      names = "--max-body",
      paramLabel = "BYTES",
      description =
          "Largest request body accepted; larger is 413 (else [server] max_body_bytes, else "
              + ServerSettings.DEFAULT_MAX_BODY_BYTES
              + ").")
  String maxBody;

  @Option(names = "--timeout", paramLabel = "T", description = Timeouts.DESCRIPTION)
  String timeout;

  @Option(
      names = "--proxy-retention",
      paramLabel = "T",
      description =
          "How long a proxy conversation is kept after its last request: 0 (forever) or a whole"
              + " number with s, m, h or d (else [server] proxy_retention, else 7d).")
  String proxyRetention;

  @Option(
      names = "--log-content",
      description =
          "Put request bodies (message content) in the request log; for debugging only (also"
              + " [server] log_content = true).")
  boolean logContent;

  @Override
  public Integer call() throws InterruptedException {
    Map<String, String> env = CompactorCommand.envOf(parent);
    ServeSettings resolved = ServeSettings.resolve(this, env);
    ServerSettings settings = resolved.server();
    ChatModelOptions options = ChatModelOptions.builder().timeout(resolved.timeout()).build();
    PrintWriter err = spec.commandLine().getErr();
    ChatStore store = ChatStores.open(resolved.db());
    ProxyStore proxyStore;
    try {
      // after the chat store: on a fresh database its migrations must run first (see ProxyStore)
      proxyStore = ProxyStore.open(resolved.db());
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    CompactorServer server;
    try {
      Tenants tenants = Tenants.of(store.keys());
      ServerMetrics metrics = new ServerMetrics();
      ChatTaskService service =
          ChatTaskService.builder(store)
              .models(metrics.models(new UpstreamModels(settings.upstreams(), options, env)))
              .build();
      PrintStream log = new PrintStream(System.err, true, StandardCharsets.UTF_8);
      try {
        server = CompactorServer.start(settings, service, tenants, log, metrics, proxyStore, env);
      } catch (IllegalArgumentException | CompactorServer.ServerStartException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      err.println("compactor serve: listening on " + server.baseUrl());
      err.println("compactor serve: store " + store.describe());
      err.println("compactor serve: auth " + tenants.describe());
      err.println(
          "compactor serve: proxy /v1/chat/completions, /v1/messages, /v1/responses"
              + " (compacting), /v1/messages/count_tokens, /v1/models (passed through)");
      err.println(
          "compactor serve: proxy conversations "
              + (settings.proxyRetention().isZero()
                  ? "kept forever"
                  : "deleted " + describe(settings.proxyRetention()) + " after their last request")
              + " (GET /v1/proxy/conversations)");
      err.println(
          "compactor serve: upstreams "
              + (settings.upstreams().isEmpty()
                  ? "none configured (public OpenAI/Anthropic endpoints, keys from the environment)"
                  : String.join(", ", settings.upstreams().keySet())));
      err.flush();
    } catch (RuntimeException e) {
      proxyStore.close();
      store.close();
      throw e;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    CompactorServer running = server;
    java.util.concurrent.atomic.AtomicBoolean stopping =
        new java.util.concurrent.atomic.AtomicBoolean();
    Runnable stop =
        () -> {
          if (!stopping.compareAndSet(false, true)) {
            return;
          }
          err.println(
              "compactor serve: stopping: no new connections; in-flight calls get up to "
                  + settings.shutdownGrace().toSeconds()
                  + " s");
          err.flush();
          try {
            running.close();
          } finally {
            proxyStore.close();
            store.close();
            err.println("compactor serve: stopped");
            err.flush();
            stopped.countDown();
          }
        };
    // SIGTERM and Ctrl-C stop the server gracefully and the command returns 0; any other way the
    // JVM exits still runs the same stop as a shutdown hook.
    for (String signal : new String[] {"TERM", "INT"}) {
      try {
        sun.misc.Signal.handle(
            new sun.misc.Signal(signal), sig -> new Thread(stop, "compactor-serve-stop").start());
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        // the platform does not let us handle it: the shutdown hook covers it
      }
    }
    Thread hook = new Thread(stop, "compactor-serve-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    stopped.await();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down
    }
    return 0;
  }

  private static String describe(java.time.Duration d) {
    if (d.toDays() > 0 && d.equals(java.time.Duration.ofDays(d.toDays()))) {
      return d.toDays() + (d.toDays() == 1 ? " day" : " days");
    }
    if (d.toHours() > 0 && d.equals(java.time.Duration.ofHours(d.toHours()))) {
      return d.toHours() + " h";
    }
    if (d.toMinutes() > 0 && d.equals(java.time.Duration.ofMinutes(d.toMinutes()))) {
      return d.toMinutes() + " min";
    }
    return d.toSeconds() + " s";
  }
}
