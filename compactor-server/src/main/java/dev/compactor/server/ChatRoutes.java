package dev.compactor.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.ChatTaskRequest;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.ChatTaskService.ChatView;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.chat.store.SummaryRecord;
import dev.compactor.core.message.Message;
import dev.compactor.wire.json.Utf8;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.util.List;

/** The chat-task routes under {@code /v1/chats}, each scoped to the caller's tenant. */
final class ChatRoutes {
  static final String CHAT = "/v1/chats/{chat_id}";

  /** Largest page of messages. */
  static final int MAX_PAGE = 1000;

  /** Default page of messages. */
  static final int DEFAULT_PAGE = 100;

  private final ChatTaskService service;
  private final ServerSettings settings;

  ChatRoutes(ChatTaskService service, ServerSettings settings) {
    this.service = service;
    this.settings = settings;
  }

  void register(RoutesConfig routes) {
    routes.post(CHAT + "/calls", this::call);
    routes.get(CHAT, this::show);
    routes.get(CHAT + "/messages", this::messages);
    routes.get(CHAT + "/summaries", this::summaries);
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
      Responses.json(ctx, 200, ChatTaskJson.write(service.call(key, request)));
    } catch (ChatTaskException e) {
      throw ApiError.of(e);
    }
  }

  private void show(Context ctx) {
    ChatKey key = key(ctx);
    ChatView v = service.show(key).orElseThrow(() -> missing(key));
    ObjectNode o = ChatTaskJson.write(v);
    o.remove("messages");
    o.remove("summaries");
    o.put("summary_count", v.summaries().size());
    Responses.json(ctx, 200, o);
  }

  private void messages(Context ctx) {
    ChatKey key = key(ctx);
    int offset = intParam(ctx, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = intParam(ctx, "limit", DEFAULT_PAGE, 1, MAX_PAGE);
    ChatView v = service.show(key).orElseThrow(() -> missing(key));
    List<Message> all = v.messages();
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.put("chat_id", key.chatId());
    o.put("total", all.size());
    o.put("offset", offset);
    ArrayNode page = o.putArray("messages");
    int end = (int) Math.min(all.size(), (long) offset + limit);
    for (int i = Math.min(offset, all.size()); i < end; i++) {
      page.add(ChatTaskJson.message(all.get(i)));
    }
    if (end < all.size()) {
      o.put("next_offset", end);
    } else {
      o.putNull("next_offset");
    }
    Responses.json(ctx, 200, o);
  }

  private void summaries(Context ctx) {
    ChatKey key = key(ctx);
    ChatView v = service.show(key).orElseThrow(() -> missing(key));
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.put("chat_id", key.chatId());
    ArrayNode list = o.putArray("summaries");
    for (SummaryRecord s : v.summaries()) {
      list.add(ChatTaskJson.summary(s));
    }
    Responses.json(ctx, 200, o);
  }

  private void summarize(Context ctx) {
    ChatKey key = key(ctx);
    try {
      Responses.json(ctx, 200, ChatTaskJson.write(service.summarize(key)));
    } catch (ChatTaskException e) {
      throw ApiError.of(e);
    }
  }

  void ready(Context ctx) {
    try {
      service.store().find(ChatKey.of("readyz-probe"));
      Responses.json(ctx, 200, Responses.ok());
    } catch (RuntimeException e) {
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

  private static int intParam(Context ctx, String name, int dflt, int min, int max) {
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
