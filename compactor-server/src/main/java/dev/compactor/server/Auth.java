package dev.compactor.server;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.server.proxy.ProxyRoutes;
import io.javalin.http.Context;

/**
 * The {@code /v1} guard: finds the caller's tenant from {@code Authorization: Bearer KEY} and keeps
 * it on the request, or answers {@code 401}. On the proxy's routes ({@link
 * ProxyRoutes#isProxyPath}) the key may also come as {@code x-api-key}, as Anthropic clients send
 * it. The key never appears in a message.
 */
final class Auth {
  /** Request attribute: the caller's tenant. */
  static final String TENANT = "compactor.tenant";

  private final Tenants tenants;

  Auth(Tenants tenants) {
    this.tenants = tenants;
  }

  void check(Context ctx) {
    if (!tenants.keysRequired()) {
      ctx.attribute(TENANT, ChatKey.DEFAULT_TENANT);
      return;
    }
    String header = ctx.header("Authorization");
    if ((header == null || header.isBlank()) && ProxyRoutes.isProxyPath(ctx.path())) {
      String apiKey = ctx.header("x-api-key");
      if (apiKey != null && !apiKey.isBlank()) {
        header = "Bearer " + apiKey.strip();
      }
    }
    if (header == null || header.isBlank()) {
      throw ApiError.unauthorized(
          "this server requires an API key: send Authorization: Bearer <key>");
    }
    String h = header.strip();
    if (h.length() < 7 || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw ApiError.unauthorized("the Authorization header must be Bearer <key>");
    }
    String key = h.substring(7).strip();
    String tenant =
        tenants
            .authenticate(key)
            .orElseThrow(() -> ApiError.unauthorized("the API key is unknown or revoked"));
    ctx.attribute(TENANT, tenant);
  }

  /** The tenant {@link #check} found. */
  static String tenant(Context ctx) {
    String t = ctx.attribute(TENANT);
    if (t == null) {
      throw new IllegalStateException("no tenant on a /v1 request");
    }
    return t;
  }
}
