package dev.compactor.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.json.ChatTaskJson;
import io.javalin.http.Context;

/** Writing JSON answers. */
final class Responses {
  private Responses() {}

  /** Request attribute: an error body was written (the 404/405 handlers leave it alone). */
  static final String ERROR_WRITTEN = "compactor.error";

  /** Request attribute: the error code written, for the request log. */
  static final String ERROR_CODE = "compactor.error.code";

  /** Request attribute: bytes of the response body, for the request log. */
  static final String RESPONSE_BYTES = "compactor.response.bytes";

  static void json(Context ctx, int status, JsonNode body) {
    byte[] bytes;
    try {
      bytes = ChatTaskJson.JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree could not be written", e);
    }
    ctx.attribute(RESPONSE_BYTES, bytes.length);
    ctx.status(status).contentType("application/json").result(bytes);
  }

  static void error(Context ctx, ApiError e) {
    ctx.attribute(ERROR_WRITTEN, Boolean.TRUE);
    ctx.attribute(ERROR_CODE, e.code());
    if (e.status() == 401) {
      ctx.header("WWW-Authenticate", "Bearer");
    }
    json(ctx, e.status(), e.body());
  }

  static ObjectNode ok() {
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.put("status", "ok");
    return o;
  }
}
