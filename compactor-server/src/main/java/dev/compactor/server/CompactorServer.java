package dev.compactor.server;

import dev.compactor.chat.ChatTaskService;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The HTTP service: chat tasks over HTTP ({@code /v1/chats/…}), health ({@code /healthz}, {@code
 * /readyz}), on Javalin (Jetty 12) on a real port.
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
  private final Javalin app;
  private final ServerSettings settings;
  private final AtomicBoolean closed = new AtomicBoolean();

  private CompactorServer(Javalin app, ServerSettings settings) {
    this.app = app;
    this.settings = settings;
  }

  /**
   * Starts a server.
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
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(tenants, "tenants");
    Objects.requireNonNull(log, "log");
    if (!tenants.keysRequired() && !isLoopback(settings.host())) {
      throw new IllegalArgumentException(
          "--host "
              + settings.host()
              + ": without API keys the server runs in single-tenant local mode and binds only"
              + " loopback addresses (127.0.0.1, ::1, localhost); create a key with `compactor"
              + " keys create --tenant NAME` to serve other hosts");
    }
    RequestLog requestLog = new RequestLog(log, settings.logContent());
    ChatRoutes chats = new ChatRoutes(service, settings);
    Auth auth = new Auth(tenants);
    Javalin app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.startup.showOldJavalinVersionWarning = false;
              config.http.maxRequestSize = settings.maxBodyBytes();
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
              config.routes.before("/v1/*", auth::check);
              config.routes.get("/healthz", ctx -> Responses.json(ctx, 200, Responses.ok()));
              config.routes.get("/readyz", chats::ready);
              chats.register(config.routes);
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
                                        + settings.maxBodyBytes()
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
    try {
      app.start();
    } catch (RuntimeException e) {
      throw new ServerStartException(
          "could not listen on " + settings.host() + ":" + settings.port() + ": " + rootMessage(e),
          e);
    }
    return new CompactorServer(app, settings);
  }

  private static void notFound(Context ctx) {
    if (ctx.attribute(Responses.ERROR_WRITTEN) != null) {
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
