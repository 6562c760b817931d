package dev.compactor.wire.error;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.wire.json.Json;

/**
 * Reads provider error bodies (and error events of a stream) into {@link ErrorFields}.
 *
 * <p>OpenAI-style bodies, also used by OpenAI-compatible servers: {@code {"error": {"message",
 * "type", "param", "code"}}}; a Responses stream's {@code {"type": "error", "error": {...}}} or
 * flat {@code {"type": "error", "code", "message"}}; llama.cpp's {@code {"error": {"code": 400,
 * "type", "message", "n_prompt_tokens", "n_ctx"}}}; vLLM's flat {@code {"object": "error",
 * "message", "code"}}; {@code {"error": "text"}}; {@code {"detail": "text"}}; a failed response's
 * {@code {"response": {"error": {...}}}}. Anthropic: {@code {"type": "error", "error": {"type",
 * "message"}}}. A body that is not a JSON object gives its text (cut to 1000 characters) as the
 * message. Stateless.
 */
public final class ErrorBodies {
  private ErrorBodies() {}

  private static final int MAX_TEXT = 1000;

  /** The fields of an OpenAI-style error body or event. */
  public static ErrorFields openAi(String body) {
    JsonNode root = Json.tryParse(body);
    if (root == null || !root.isObject()) {
      return plainText(body);
    }
    JsonNode e;
    JsonNode err = root.get("error");
    if (err != null && err.isObject()) {
      e = err;
    } else if (err != null && err.isTextual()) {
      return new ErrorFields(err.asText(), null, null, null, null);
    } else if (root.has("message")) {
      e = root;
    } else if (root.path("detail").isTextual()) {
      return new ErrorFields(root.get("detail").asText(), null, null, null, null);
    } else if (root.path("response").path("error").isObject()) {
      e = root.get("response").get("error");
    } else {
      return ErrorFields.NONE;
    }
    return new ErrorFields(
        Json.scalar(e, "message"),
        errorType(root, e),
        Json.scalar(e, "code"),
        Json.longOrNull(e, "n_prompt_tokens"),
        Json.longOrNull(e, "n_ctx"));
  }

  /** The fields of an Anthropic error body or {@code error} stream event. */
  public static ErrorFields anthropic(String body) {
    JsonNode root = Json.tryParse(body);
    if (root == null || !root.isObject()) {
      return plainText(body);
    }
    JsonNode e = root.path("error").isObject() ? root.get("error") : root;
    return new ErrorFields(Json.scalar(e, "message"), errorType(root, e), null, null, null);
  }

  /** The error's type; a flat event's {@code "type": "error"} names the event, not the error. */
  private static String errorType(JsonNode root, JsonNode e) {
    String type = Json.scalar(e, "type");
    return e == root && "error".equals(type) ? null : type;
  }

  private static ErrorFields plainText(String body) {
    String text = body == null ? null : body.strip();
    return new ErrorFields(
        text == null || text.isEmpty()
            ? null
            : text.substring(0, Math.min(MAX_TEXT, text.length())),
        null,
        null,
        null,
        null);
  }
}
