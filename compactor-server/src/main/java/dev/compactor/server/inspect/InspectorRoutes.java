package dev.compactor.server.inspect;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.store.ChatOverview;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.MessagePage;
import dev.compactor.server.Tenants;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The inspector's routes under {@code /inspect}: the tenant's conversations and chats, a
 * conversation page, a chat page, and the originals behind a synthesized entry ({@code
 * /inspect/conversations/{id}/recover/{entry}}, a whole page, or the fragment the page's script
 * shows in place with {@code ?fragment=1}).
 *
 * <p>Tenant-scoped like the API. When the tenants need keys, a page without a valid key answers
 * {@code 401} with a form; the form posts the key to {@code /inspect/login}, which keeps it in an
 * {@code HttpOnly; SameSite=Strict} cookie limited to {@code /inspect} (never in an address);
 * {@code /inspect/logout} forgets it. Every page is sent with a content security policy that allows
 * only this server's own script and style, and every stored value is escaped.
 */
public final class InspectorRoutes {
  /** The cookie that holds the API key in tenant mode. */
  static final String KEY_COOKIE = "compactor_inspect_key";

  private static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

  private final InspectorSource source;
  private final Tenants tenants;
  private final byte[] css = resource("inspector.css");
  private final byte[] js = resource("inspector.js");

  /**
   * @param source what the pages show
   * @param tenants who may look (keys required or local mode)
   */
  public InspectorRoutes(InspectorSource source, Tenants tenants) {
    this.source = Objects.requireNonNull(source, "source");
    this.tenants = Objects.requireNonNull(tenants, "tenants");
  }

  /** Adds the routes. */
  public void register(RoutesConfig routes) {
    String b = Pages.BASE;
    routes.get(b, this::list);
    routes.post(b + "/login", this::login);
    routes.post(b + "/logout", this::logout);
    routes.get(b + "/conversations/{id}", this::conversation);
    routes.get(b + "/conversations/{id}/recover/{entry}", this::recover);
    routes.get(b + "/chats/{id}", this::chat);
    routes.get(
        b + "/static/inspector.css", ctx -> headers(ctx).contentType("text/css").result(css));
    routes.get(
        b + "/static/inspector.js", ctx -> headers(ctx).contentType("text/javascript").result(js));
  }

  // ------------------------------------------------------------------ tenant

  /** The caller's tenant, or empty after a login form was answered. */
  private Optional<String> tenant(Context ctx) {
    if (!tenants.keysRequired()) {
      return Optional.of(ChatKey.DEFAULT_TENANT);
    }
    String cookie = ctx.cookie(KEY_COOKIE);
    Optional<String> t =
        cookie == null || cookie.isBlank()
            ? Optional.empty()
            : tenants.authenticate(URLDecoder.decode(cookie, StandardCharsets.UTF_8));
    if (t.isEmpty()) {
      html(
          ctx,
          401,
          Pages.login(
              cookie == null ? null : "The API key kept for this page is unknown or revoked."));
    }
    return t;
  }

  private void login(Context ctx) {
    if (!tenants.keysRequired()) {
      redirect(ctx, Pages.BASE);
      return;
    }
    String key = ctx.formParam("key");
    String k = key == null ? "" : key.strip();
    if (k.isEmpty() || tenants.authenticate(k).isEmpty()) {
      html(ctx, 401, Pages.login("That API key is unknown or revoked."));
      return;
    }
    ctx.header(
        "Set-Cookie",
        KEY_COOKIE
            + "="
            + URLEncoder.encode(k, StandardCharsets.UTF_8)
            + "; Path="
            + Pages.BASE
            + "; HttpOnly; SameSite=Strict"
            + (ctx.scheme().equals("https") ? "; Secure" : ""));
    redirect(ctx, Pages.BASE);
  }

  private void logout(Context ctx) {
    ctx.header(
        "Set-Cookie",
        KEY_COOKIE + "=; Path=" + Pages.BASE + "; HttpOnly; SameSite=Strict; Max-Age=0");
    redirect(ctx, Pages.BASE);
  }

  private boolean loggedIn() {
    return tenants.keysRequired();
  }

  // ------------------------------------------------------------------ pages

  private void list(Context ctx) {
    Optional<String> tenant = tenant(ctx);
    if (tenant.isEmpty()) {
      return;
    }
    ChatStore chats = source.chats();
    List<ChatOverview> chatList =
        chats == null
            ? List.of()
            : chats.listChats(tenant.get(), null, ChatStore.MAX_PAGE_SIZE).chats();
    html(
        ctx,
        200,
        Pages.list(
            tenant.get(), source.conversations(tenant.get()), chatList, chats != null, loggedIn()));
  }

  private void conversation(Context ctx) {
    Optional<String> tenant = tenant(ctx);
    if (tenant.isEmpty()) {
      return;
    }
    String id = ctx.pathParam("id");
    Optional<InspectedConversation> c = source.conversation(tenant.get(), id);
    if (c.isEmpty()) {
      html(ctx, 404, Pages.error(404, "no conversation " + id + " for this tenant", loggedIn()));
      return;
    }
    html(ctx, 200, Pages.conversation(c.get(), loggedIn()));
  }

  private void recover(Context ctx) {
    Optional<String> tenant = tenant(ctx);
    if (tenant.isEmpty()) {
      return;
    }
    String id = ctx.pathParam("id");
    String entry = ctx.pathParam("entry");
    Optional<List<InspectorSource.Original>> o = source.recover(tenant.get(), id, entry);
    if (o.isEmpty()) {
      html(
          ctx,
          404,
          Pages.error(
              404,
              "conversation " + id + " has no synthesized entry " + entry + " for this tenant",
              loggedIn()));
      return;
    }
    boolean fragment = "1".equals(ctx.queryParam("fragment"));
    html(
        ctx,
        200,
        fragment ? Pages.originals(o.get()) : Pages.recoverPage(id, entry, o.get(), loggedIn()));
  }

  private void chat(Context ctx) {
    Optional<String> tenant = tenant(ctx);
    if (tenant.isEmpty()) {
      return;
    }
    String id = ctx.pathParam("id");
    ChatStore chats = source.chats();
    Optional<ChatOverview> c = Optional.empty();
    ChatKey key = null;
    if (chats != null) {
      try {
        key = ChatKey.of(tenant.get(), id);
        c = chats.overview(key);
      } catch (IllegalArgumentException e) {
        c = Optional.empty();
      }
    }
    if (c.isEmpty()) {
      html(ctx, 404, Pages.error(404, "no chat " + id + " for this tenant", loggedIn()));
      return;
    }
    boolean archived = "1".equals(ctx.queryParam("archived"));
    MessagePage page =
        chats
            .messages(key, 0, ChatStore.MAX_PAGE_SIZE, archived)
            .orElse(new MessagePage(List.of(), 0, 0));
    html(
        ctx,
        200,
        Pages.chat(c.get(), page, chats.summaries(key), chats.calls(key), archived, loggedIn()));
  }

  // ------------------------------------------------------------------ responses

  private static Context headers(Context ctx) {
    ctx.header("Content-Security-Policy", CSP);
    ctx.header("X-Content-Type-Options", "nosniff");
    ctx.header("Referrer-Policy", "no-referrer");
    ctx.header("Cache-Control", "no-store");
    return ctx;
  }

  private static void html(Context ctx, int status, String html) {
    headers(ctx);
    // an answer is written: the server's JSON error pages leave it alone
    ctx.attribute("compactor.error", Boolean.TRUE);
    ctx.status(status).contentType("text/html; charset=utf-8").result(html);
  }

  private static void redirect(Context ctx, String to) {
    headers(ctx);
    ctx.attribute("compactor.error", Boolean.TRUE);
    ctx.header("Location", to);
    ctx.status(303).result("");
  }

  private static byte[] resource(String name) {
    try (InputStream in = InspectorRoutes.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(
            "the resource " + name + " is missing beside " + InspectorRoutes.class);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
