package dev.compactor.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.server.proxy.ProxyStore;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;

/**
 * The proxy's conversations over the API, each scoped to the caller's tenant: {@code GET
 * /v1/proxy/conversations} (keyset-paged, most recent activity first), {@code GET …/{id}} (a
 * summary), {@code GET …/{id}/messages} (the master log, paged) and {@code DELETE …/{id}}. Under
 * {@code /v1/proxy/}, a prefix no provider API has, so these never shadow a proxied path. Another
 * tenant's conversation is {@code 404}, as for chats.
 */
final class ProxyConversationRoutes {
  static final String LIST = "/v1/proxy/conversations";
  static final String ONE = LIST + "/{conversation_id}";

  private final ProxyStore store;

  ProxyConversationRoutes(ProxyStore store) {
    this.store = store;
  }

  void register(RoutesConfig routes) {
    routes.get(LIST, this::list);
    routes.get(ONE, this::show);
    routes.get(ONE + "/messages", this::messages);
    routes.delete(ONE, this::delete);
  }

  private void list(Context ctx) {
    int limit = ChatRoutes.intParam(ctx, "limit", ChatRoutes.DEFAULT_PAGE, 1, ChatRoutes.MAX_PAGE);
    ProxyStore.Page page =
        ChatRoutes.listAfterCursor(ctx, cursor -> store.list(Auth.tenant(ctx), cursor, limit));
    Responses.json(
        ctx,
        200,
        ChatRoutes.keysetPage(
            "conversations", page.conversations(), ProxyConversationRoutes::json, page.next()));
  }

  private void show(Context ctx) {
    Responses.json(ctx, 200, json(find(ctx)));
  }

  private void messages(Context ctx) {
    ProxyStore.Summary s = find(ctx);
    int offset = ChatRoutes.intParam(ctx, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = ChatRoutes.intParam(ctx, "limit", ChatRoutes.DEFAULT_PAGE, 1, ChatRoutes.MAX_PAGE);
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.put("conversation_id", s.id());
    o.put("total", s.messages());
    o.put("offset", offset);
    ArrayNode items = o.putArray("messages");
    var page = store.logPage(s.id(), offset, limit);
    for (ProxyStore.LoggedItem e : page) {
      ObjectNode m = items.addObject();
      m.put("seq", e.seq());
      m.put("kind", e.kind());
      m.set("item", parse(e.body()));
      m.put("created_at", e.createdAt().toString());
    }
    long next = (long) offset + page.size();
    if (page.size() < limit || next >= s.messages()) {
      o.putNull("next_offset");
    } else {
      o.put("next_offset", next);
    }
    Responses.json(ctx, 200, o);
  }

  private void delete(Context ctx) {
    String id = ctx.pathParam("conversation_id");
    if (!store.delete(Auth.tenant(ctx), id)) {
      throw missing(id);
    }
    ctx.status(204);
  }

  private ProxyStore.Summary find(Context ctx) {
    String id = ctx.pathParam("conversation_id");
    return store.summary(Auth.tenant(ctx), id).orElseThrow(() -> missing(id));
  }

  private static ApiError missing(String id) {
    String shown = id.length() <= 80 ? id : id.substring(0, 80) + "…";
    return ApiError.notFound("no proxy conversation \"" + shown + "\"");
  }

  private static ObjectNode json(ProxyStore.Summary s) {
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.put("id", s.id());
    o.put("conversation", s.externalKey());
    o.put("session", s.session());
    o.put("api", s.api().toLowerCase(java.util.Locale.ROOT));
    o.put("upstream", s.upstream());
    o.put("model", s.model());
    o.put("forked_from", s.forkedFrom());
    o.put("messages", s.messages());
    o.put("tokens", s.tokens());
    o.put("compactions", s.compactions());
    o.put("created_at", s.createdAt().toString());
    o.put("last_activity", s.lastActivity().toString());
    return o;
  }

  private static JsonNode parse(String json) {
    try {
      return ChatTaskJson.JSON.readTree(json);
    } catch (IOException e) {
      return ChatTaskJson.JSON.getNodeFactory().textNode(json);
    }
  }
}
