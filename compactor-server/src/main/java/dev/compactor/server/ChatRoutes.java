package dev.compactor.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.ChatTaskRequest;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.chat.settings.StickySettings;
import dev.compactor.chat.store.ArchivedMessage;
import dev.compactor.chat.store.ChatOverview;
import dev.compactor.chat.store.ChatPage;
import dev.compactor.chat.store.MessageEntry;
import dev.compactor.chat.store.MessagePage;
import dev.compactor.wire.json.Utf8;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.util.List;
import java.util.function.Function;

/** The chat-task routes under {@code /v1/chats}, each scoped to the caller's tenant. */
final class ChatRoutes {
  static final String CHAT = "/v1/chats/{chat_id}";

  /** Largest page of messages. */
  static final int MAX_PAGE = 1000;

  /** Default page of messages. */
  static final int DEFAULT_PAGE = 100;

  private final ChatTaskService service;
  private final ServerSettings settings;
  private final ServerMetrics metrics;

  ChatRoutes(ChatTaskService service, ServerSettings settings, ServerMetrics metrics) {
    this.service = service;
    this.settings = settings;
    this.metrics = metrics;
  }

  void register(RoutesConfig routes) {
    routes.get("/v1/chats", this::list);
    routes.post(CHAT + "/calls", this::call);
    routes.get(CHAT, this::show);
    routes.delete(CHAT, this::delete);
    routes.get(CHAT + "/messages", this::messages);
    routes.get(CHAT + "/summaries", this::summaries);
    routes.get(CHAT + "/calls", this::calls);
    routes.post(CHAT + "/summarize", this::summarize);
  }

  // ------------------------------------------------------------------ routes

  private void call(Context ctx) {
    ChatKey key = key(ctx);
    String body = body(ctx);
    ChatTaskRequest request;
    try {
      request = ChatTaskJson.parseRequest(body);
    } catch (ChatTaskException e) {
      throw ApiError.of(e);
    }
    if (request.messages().size() > settings.maxMessagesPerCall()) {
      throw new ApiError(
          413,
          "too_many_messages",
          "the call brings "
              + request.messages().size()
              + " messages; this server takes at most "
              + settings.maxMessagesPerCall()
              + " per call");
    }
    try {
      Responses.json(ctx, 200, ChatTaskJson.write(metrics.call(() -> service.call(key, request))));
    } catch (ChatTaskException e) {
      throw ApiError.of(e);
    }
  }

  private void list(Context ctx) {
    int limit = intParam(ctx, "limit", DEFAULT_PAGE, 1, MAX_PAGE);
    ChatPage page =
        listAfterCursor(ctx, cursor -> service.store().listChats(Auth.tenant(ctx), cursor, limit));
    Responses.json(ctx, 200, keysetPage("chats", page.chats(), ChatRoutes::chat, page.next()));
  }

  /**
   * A keyset-paged listing after the request's {@code cursor} query parameter (none: from the
   * start).
   *
   * @throws ApiError {@code 400} naming the parameter when the store rejects the cursor
   */
  static <P> P listAfterCursor(Context ctx, Function<String, P> list) {
    try {
      return list.apply(ctx.queryParam("cursor"));
    } catch (IllegalArgumentException e) {
      throw ApiError.invalidRequest("query parameter cursor: " + e.getMessage());
    }
  }

  /**
   * A page of a keyset-paged listing: the items, as {@code json} makes them, under {@code field},
   * and {@code next_cursor} ({@code null} on the last page).
   */
  static <T> ObjectNode keysetPage(
      String field, List<T> items, Function<T, ObjectNode> json, String next) {
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    ArrayNode array = o.putArray(field);
    for (T item : items) {
      array.add(json.apply(item));
    }
    o.put("next_cursor", next);
    return o;
  }

  private void show(Context ctx) {
    ChatKey key = key(ctx);
    ChatOverview c = service.store().overview(key).orElseThrow(() -> missing(key));
    Responses.json(ctx, 200, chat(c));
  }

  /** A chat as the API shows it: record, counters, settings as given and effective. */
  private static ObjectNode chat(ChatOverview c) {
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    ChatTaskJson.putRecord(o, c.record());
    o.put("message_count", c.messageCount());
    o.put("archived_message_count", c.archivedCount());
    o.put("summary_count", c.summaryCount());
    ChatTaskJson.putSettings(o, StickySettings.fromJson(c.record().settings()));
    return o;
  }

  private void delete(Context ctx) {
    ChatKey key = key(ctx);
    if (!service.store().delete(key)) {
      throw missing(key);
    }
    ctx.status(204);
  }

  private void messages(Context ctx) {
    ChatKey key = key(ctx);
    int offset = intParam(ctx, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = intParam(ctx, "limit", DEFAULT_PAGE, 1, MAX_PAGE);
    String include = ctx.queryParam("include");
    if (include != null && !include.equals("archived")) {
      throw ApiError.invalidRequest(
          "query parameter include=\"" + include + "\": the only value is archived");
    }
    MessagePage p =
        service
            .store()
            .messages(key, offset, limit, include != null)
            .orElseThrow(() -> missing(key));
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.put("chat_id", key.chatId());
    o.put("total", p.total());
    o.put("offset", p.offset());
    ArrayNode page = o.putArray("messages");
    for (MessageEntry e : p.messages()) {
      ObjectNode m = ChatTaskJson.message(e.message());
      if (e.archived()) {
        ArchivedMessage a = e.archive();
        ObjectNode ao = m.putObject("archived");
        ao.put("reason", a.reason().wireName());
        ao.put("gpt_summary_uuid", a.summaryUuid());
        ao.put("archived_at", a.archivedAt().toString());
      }
      page.add(m);
    }
    if (p.hasNext()) {
      o.put("next_offset", p.nextOffset());
    } else {
      o.putNull("next_offset");
    }
    Responses.json(ctx, 200, o);
  }

  private void summaries(Context ctx) {
    list(ctx, "summaries", service.store()::summaries, ChatTaskJson::summary);
  }

  private void calls(Context ctx) {
    list(ctx, "calls", service.store()::calls, ChatTaskJson::call);
  }

  /** Answers {@code {"chat_id": …, field: [each record as JSON]}}; 404 for a chat not stored. */
  private <T> void list(
      Context ctx, String field, Function<ChatKey, List<T>> records, Function<T, ObjectNode> json) {
    ChatKey key = key(ctx);
    if (service.store().overview(key).isEmpty()) {
      throw missing(key);
    }
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.put("chat_id", key.chatId());
    ArrayNode list = o.putArray(field);
    records.apply(key).forEach(r -> list.add(json.apply(r)));
    Responses.json(ctx, 200, o);
  }

  private void summarize(Context ctx) {
    ChatKey key = key(ctx);
    try {
      Responses.json(ctx, 200, ChatTaskJson.write(metrics.summarize(() -> service.summarize(key))));
    } catch (ChatTaskException e) {
      throw ApiError.of(e);
    }
  }

  void ready(Context ctx) {
    try {
      service.store().find(ChatKey.of("readyz-probe"));
      Responses.json(ctx, 200, Responses.ok());
    } catch (RuntimeException e) {
      metrics.storeError("/readyz");
      throw new ApiError(
          503, "store_unavailable", "the store is not reachable: " + e.getClass().getSimpleName());
    }
  }

  // ------------------------------------------------------------------ helpers

  /** The caller's chat named by the path. */
  static ChatKey key(Context ctx) {
    try {
      return new ChatKey(Auth.tenant(ctx), ctx.pathParam("chat_id"));
    } catch (IllegalArgumentException e) {
      throw ApiError.invalidRequest("chat_id: " + e.getMessage());
    }
  }

  private static ApiError missing(ChatKey key) {
    // The same answer whether the chat is absent or another tenant's: no existence oracle.
    return ApiError.notFound("chat " + key.chatId() + " does not exist");
  }

  /** The request body as UTF-8 text, read up to the limit (a longer one is {@code 413}). */
  private String body(Context ctx) {
    long declared = ctx.req().getContentLengthLong();
    long max = settings.maxBodyBytes();
    if (declared > max) {
      throw tooLarge(max);
    }
    byte[] bytes;
    try (InputStream in = ctx.req().getInputStream()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(declared > 0 ? (int) declared : 8192);
      byte[] buf = new byte[16384];
      long total = 0;
      int n;
      while ((n = in.read(buf)) > 0) {
        total += n;
        if (total > max) {
          throw tooLarge(max);
        }
        out.write(buf, 0, n);
      }
      bytes = out.toByteArray();
    } catch (IOException e) {
      throw ApiError.invalidRequest(
          "the request body could not be read: " + e.getClass().getSimpleName());
    }
    if (bytes.length == 0) {
      throw ApiError.invalidRequest("the request body is empty; send the chat-task request JSON");
    }
    try {
      String text = Utf8.decode(bytes, "the request body");
      ctx.attribute(RequestLog.BODY, text);
      return text;
    } catch (CharacterCodingException e) {
      throw ApiError.invalidRequest(e.getMessage());
    }
  }

  private static ApiError tooLarge(long max) {
    return ApiError.tooLarge(
        "the request body is larger than this server's limit of " + max + " bytes");
  }

  static int intParam(Context ctx, String name, int dflt, int min, int max) {
    String v = ctx.queryParam(name);
    if (v == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n < min || n > max) {
        throw ApiError.invalidRequest(
            "query parameter " + name + "=" + v + " must be " + min + " to " + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw ApiError.invalidRequest(
          "query parameter " + name + "=\"" + v + "\" is not a whole number");
    }
  }
}
