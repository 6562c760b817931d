package dev.compactor.server;

import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStoreException;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.server.inspect.InspectorRoutes;
import dev.compactor.server.inspect.InspectorSource;
import dev.compactor.server.proxy.ProxyRetention;
import dev.compactor.server.proxy.ProxyRoutes;
import dev.compactor.server.proxy.ProxyStore;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.router.Endpoint;
import io.javalin.router.ParsedEndpoint;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The HTTP service: chat tasks over HTTP ({@code /v1/chats/…}), health ({@code /healthz}, {@code
 * /readyz}), metrics ({@code /metrics}, {@link ServerMetrics}) and the OpenAPI document ({@code
 * /openapi.json}), on Javalin (Jetty 12) on a real port.
 *
 * <p>Every {@code /v1} request is scoped to the caller's tenant ({@link Tenants}); another tenant's
 * chat is {@code 404}, never {@code 403}. Without keys the server is in single-tenant local mode
 * and binds only loopback addresses.
 *
 * <p>{@link #close()} stops gracefully: the server stops accepting, lets in-flight calls finish
 * within {@link ServerSettings#shutdownGrace()}, then returns; the caller closes the store.
 *
 * <pre>{@code
 * try (ChatStore store = ChatStores.open("chats.db");
 *     CompactorServer server = CompactorServer.start(ServerSettings.builder().port(0).build(),
 *         ChatTaskService.builder(store).build(), Tenants.localMode(), System.err)) {
 *   System.out.println("listening on " + server.baseUrl());
 * }
 * }</pre>
 */
public final class CompactorServer implements AutoCloseable {
  /** How long an upstream may take to start answering a proxied request. */
  static final Duration PROXY_TIMEOUT = Duration.ofMinutes(10);

  private final Javalin app;
  private final ServerSettings settings;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ProxyRetention retention;

  private CompactorServer(Javalin app, ServerSettings settings, ProxyRetention retention) {
    this.app = app;
    this.settings = settings;
    this.retention = retention;
  }

  /** The OpenAPI document served at {@code /openapi.json}, a resource beside this class. */
  static final String OPENAPI_RESOURCE = "openapi.json";

  /**
   * Starts a server with fresh metrics (its model calls are not timed: see {@link
   * #start(ServerSettings, ChatTaskService, Tenants, PrintStream, ServerMetrics)}).
   *
   * @param settings where to listen and what to accept
   * @param service the chat tasks it serves (its store is the one {@code /readyz} checks)
   * @param tenants who may call
   * @param log where the one-line-per-request log goes
   * @throws IllegalArgumentException when {@code tenants} require no keys and {@code
   *     settings.host()} is not a loopback address
   * @throws ServerStartException when the port cannot be bound
   */
  public static CompactorServer start(
      ServerSettings settings, ChatTaskService service, Tenants tenants, PrintStream log) {
    return start(settings, service, tenants, log, new ServerMetrics());
  }

  /**
   * Starts a server that records into {@code metrics} and serves them at {@code /metrics}. Build
   * {@code service} with {@code models(metrics.models(factory))} for model-call latency.
   *
   * @param settings where to listen and what to accept
   * @param service the chat tasks it serves (its store is the one {@code /readyz} checks)
   * @param tenants who may call
   * @param log where the one-line-per-request log goes
   * @param metrics where requests, calls, compactions and store errors are counted
   * @throws IllegalArgumentException when {@code tenants} require no keys and {@code
   *     settings.host()} is not a loopback address
   * @throws ServerStartException when the port cannot be bound
   */
  public static CompactorServer start(
      ServerSettings settings,
      ChatTaskService service,
      Tenants tenants,
      PrintStream log,
      ServerMetrics metrics) {
    return start(settings, service, tenants, log, metrics, null, Map.of());
  }

  /**
   * Starts a server that is also the compacting proxy ({@link ProxyRoutes}: {@code
   * /v1/chat/completions}, {@code /v1/messages}, … to the configured upstreams), as {@link
   * #start(ServerSettings, ChatTaskService, Tenants, PrintStream, ServerMetrics)} otherwise.
   *
   * @param proxyStore the proxy's conversations, or null for no proxy routes
   * @param env where upstream keys are read when tenants need keys
   */
  public static CompactorServer start(
      ServerSettings settings,
      ChatTaskService service,
      Tenants tenants,
      PrintStream log,
      ServerMetrics metrics,
      ProxyStore proxyStore,
      Map<String, String> env) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(tenants, "tenants");
    Objects.requireNonNull(log, "log");
    Objects.requireNonNull(metrics, "metrics");
    byte[] openApi = openApiDocument();
    if (!tenants.keysRequired() && !isLoopback(settings.host())) {
      throw new IllegalArgumentException(
          "--host "
              + settings.host()
              + ": without API keys the server runs in single-tenant local mode and binds only"
              + " loopback addresses (127.0.0.1, ::1, localhost); create a key with `compactor"
              + " keys create --tenant NAME` to serve other hosts");
    }
    RequestLog requestLog = new RequestLog(log, settings.logContent());
    ChatRoutes chats = new ChatRoutes(service, settings, metrics);
    Auth auth = new Auth(tenants);
    ProxyRoutes proxy =
        proxyStore == null
            ? null
            : new ProxyRoutes(
                settings.upstreams(),
                env,
                tenants.keysRequired(),
                proxyStore,
                Auth::tenant,
                log,
                PROXY_TIMEOUT,
                metrics.proxy(),
                metrics.models(
                    new UpstreamModels(
                        settings.upstreams(),
                        ChatModelOptions.builder().timeout(settings.modelTimeout()).build(),
                        env)));
    ProxyConversationRoutes proxyConversations =
        proxyStore == null ? null : new ProxyConversationRoutes(proxyStore);
    AtomicReference<Javalin> self = new AtomicReference<>();
    Javalin app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.startup.showOldJavalinVersionWarning = false;
              // the chat-task routes read their bodies with settings.maxBodyBytes() themselves; the
              // proxy's requests may carry far longer conversations
              config.http.maxRequestSize =
                  Math.max(settings.maxBodyBytes(), ServerSettings.PROXY_MAX_BODY_BYTES);
              config.jetty.modifyServer(
                  server -> server.setStopTimeout(settings.shutdownGrace().toMillis()));
              config.jetty.addConnector(
                  (server, http) -> {
                    ServerConnector c =
                        new ServerConnector(server, new HttpConnectionFactory(http));
                    c.setHost(settings.host());
                    c.setPort(settings.port());
                    c.setIdleTimeout(settings.idleTimeout().toMillis());
                    return c;
                  });
              config.requestLogger.http(requestLog::log);
              config.requestLogger.http(
                  (ctx, ms) ->
                      metrics.request(
                          ctx.method().name(),
                          metricsRoute(self.get(), ctx),
                          ctx.status().getCode(),
                          ms));
              config.routes.before("/v1/*", auth::check);
              config.routes.before("/u/*", auth::check);
              config.routes.get("/healthz", ctx -> Responses.json(ctx, 200, Responses.ok()));
              config.routes.get("/readyz", chats::ready);
              config.routes.get(
                  "/metrics",
                  ctx -> ctx.contentType(ServerMetrics.contentType()).result(metrics.scrape()));
              config.routes.get(
                  "/openapi.json", ctx -> ctx.contentType("application/json").result(openApi));
              chats.register(config.routes);
              if (proxy != null) {
                proxy.register(config.routes);
                proxyConversations.register(config.routes);
              }
              new InspectorRoutes(InspectorSource.ofService(proxyStore, service.store()), tenants)
                  .register(config.routes);
              config.routes.exception(ApiError.class, (e, ctx) -> Responses.error(ctx, e));
              config.routes.exception(
                  HttpResponseException.class,
                  (e, ctx) ->
                      Responses.error(
                          ctx,
                          switch (e.getStatus()) {
                            case 404, 405 -> noRoute(ctx);
                            case 413 ->
                                ApiError.tooLarge(
                                    "the request body is larger than this server's limit of "
                                        + Math.max(
                                            settings.maxBodyBytes(),
                                            ServerSettings.PROXY_MAX_BODY_BYTES)
                                        + " bytes");
                            default ->
                                new ApiError(
                                    e.getStatus(),
                                    "http_" + e.getStatus(),
                                    String.valueOf(e.getMessage()));
                          }));
              config.routes.exception(
                  Exception.class,
                  (e, ctx) -> {
                    requestLog.failure(ctx, e);
                    if (isStoreFailure(e)) {
                      metrics.storeError(metricsRoute(self.get(), ctx));
                    }
                    if (isPoolExhausted(e)) {
                      ctx.header("Retry-After", "1");
                      Responses.error(
                          ctx,
                          new ApiError(
                              503,
                              "store_busy",
                              "every connection to the store is in use (each call in progress"
                                  + " holds one); nothing of the call was stored, retry it"));
                      return;
                    }
                    Responses.error(
                        ctx,
                        new ApiError(
                            500,
                            "internal_error",
                            "the server failed: "
                                + e.getClass().getSimpleName()
                                + "; nothing of the call was stored"));
                  });
              config.routes.error(404, "*", ctx -> notFound(ctx));
              config.routes.error(405, "*", ctx -> notFound(ctx));
            });
    self.set(app);
    try {
      app.start();
    } catch (RuntimeException e) {
      throw new ServerStartException(
          "could not listen on " + settings.host() + ":" + settings.port() + ": " + rootMessage(e),
          e);
    }
    ProxyRetention sweep = null;
    if (proxyStore != null && !settings.proxyRetention().isZero()) {
      sweep =
          new ProxyRetention(
              proxyStore, settings.proxyRetention(), Clock.systemUTC(), metrics.proxy(), log);
      sweep.start();
    }
    return new CompactorServer(app, settings, sweep);
  }

  /**
   * The route template for metrics: the matched route, also when a before-handler answered first (a
   * {@code 401}); "unmatched" when no route has the method and path. Never a raw path.
   */
  static String metricsRoute(Javalin app, Context ctx) {
    Endpoint e = ctx.endpoints().lastHttpEndpoint();
    if (e == null && app != null) {
      ParsedEndpoint p =
          app.unsafe.internalRouter.findFirstHttpHandlerEntry(ctx.method(), ctx.path());
      e = p == null ? null : p.endpoint;
    }
    return e == null || e.path.isEmpty() || e.path.contains("*") ? "unmatched" : e.path;
  }

  /** The store's connection pool had no connection within its timeout. */
  private static boolean isPoolExhausted(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.sql.SQLTransientConnectionException) {
        return true;
      }
    }
    return false;
  }

  private static boolean isStoreFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ChatStoreException) {
        return true;
      }
    }
    return false;
  }

  private static byte[] openApiDocument() {
    try (InputStream in = CompactorServer.class.getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "the resource " + OPENAPI_RESOURCE + " is missing beside " + CompactorServer.class);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("the resource " + OPENAPI_RESOURCE + " could not be read", e);
    }
  }

  /**
   * Every registered API route as {@code "METHOD /path/{param}"} (before/after handlers left out;
   * so are the inspector's HTML pages under {@code /inspect}, which the API document does not
   * describe).
   */
  List<String> routes() {
    return app.unsafe.internalRouter.allHttpHandlers().stream()
        .map(p -> p.endpoint)
        .filter(e -> e.method.isHttpMethod())
        .filter(e -> !e.path.startsWith("/inspect"))
        .map(e -> e.method.name() + " " + e.path)
        .sorted()
        .toList();
  }

  private static void notFound(Context ctx) {
    if (ctx.attribute(Responses.ERROR_WRITTEN) != null || ctx.res().isCommitted()) {
      // an answer was written already (an error body, or a provider's 404 the proxy relayed)
      return;
    }
    Responses.error(ctx, noRoute(ctx));
  }

  private static ApiError noRoute(Context ctx) {
    return ApiError.notFound(
        "no route " + ctx.method() + " " + ctx.path() + " (see /openapi.json)");
  }

  /** The port the server listens on (the chosen one when the settings said 0). */
  public int port() {
    return app.port();
  }

  /** {@code http://HOST:PORT}, the base URL clients use. */
  public String baseUrl() {
    String host = settings.host();
    if (host.contains(":") && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return "http://" + host + ":" + port();
  }

  /** Stops accepting, lets in-flight requests finish (bounded), stops. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      if (retention != null) {
        retention.close();
      }
      app.stop();
    }
  }

  static boolean isLoopback(String host) {
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    try {
      String h =
          host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
      if (!h.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':')) {
        return false; // a host name other than localhost: not resolved, not trusted
      }
      return InetAddress.getByName(h).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  /** The server could not start (port in use, permission denied). */
  public static final class ServerStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ServerStartException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
