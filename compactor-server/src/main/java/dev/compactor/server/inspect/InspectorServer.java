package dev.compactor.server.inspect;

import dev.compactor.server.Tenants;
import io.javalin.Javalin;
import java.util.Objects;

/**
 * The inspector alone on a loopback address, for one conversation directory ({@code compactor
 * inspect DIR --web}): single-tenant, no keys.
 *
 * <pre>{@code
 * try (StoredConversation c = StoredConversation.openReadOnly(dir);
 *     InspectorServer s = InspectorServer.start("127.0.0.1", 0,
 *         InspectorSource.ofDirectory(c, model, budget, window, counter))) {
 *   System.out.println(s.conversationUrl());
 * }
 * }</pre>
 */
public final class InspectorServer implements AutoCloseable {
  private final Javalin app;
  private final String host;
  private final InspectorSource source;

  private InspectorServer(Javalin app, String host, InspectorSource source) {
    this.app = app;
    this.host = host;
    this.source = source;
  }

  /**
   * Starts serving.
   *
   * @param host a loopback address
   * @param port the port, 0 for any free one
   * @throws IllegalArgumentException when {@code host} is not a loopback address
   * @throws IllegalStateException when the port cannot be bound
   */
  public static InspectorServer start(String host, int port, InspectorSource source) {
    Objects.requireNonNull(source, "source");
    if (!(host.equals("127.0.0.1") || host.equals("::1") || host.equals("localhost"))) {
      throw new IllegalArgumentException(
          "the inspector of a directory serves loopback addresses only, got host " + host);
    }
    InspectorRoutes routes = new InspectorRoutes(source, Tenants.localMode());
    Javalin app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.startup.showOldJavalinVersionWarning = false;
              routes.register(config.routes);
              config.routes.get("/", ctx -> ctx.redirect(Pages.BASE));
            });
    try {
      app.start(host, port);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "could not listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    return new InspectorServer(app, host, source);
  }

  /** The port it listens on. */
  public int port() {
    return app.port();
  }

  /** {@code http://HOST:PORT/inspect}. */
  public String url() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return "http://" + h + ":" + port() + Pages.BASE;
  }

  /** The page of the (first) conversation, or {@link #url()} when there is none. */
  public String conversationUrl() {
    var list = source.conversations(dev.compactor.chat.base.ChatKey.DEFAULT_TENANT);
    return list.isEmpty() ? url() : url() + "/conversations/" + Html.seg(list.get(0).id());
  }

  @Override
  public void close() {
    app.stop();
  }
}
