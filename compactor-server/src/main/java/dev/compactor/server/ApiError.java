package dev.compactor.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.ModelTimeoutException;
import java.util.Objects;

/**
 * An HTTP error answer: a status and the body {@code {"error": {"code", "message"}}}, with the
 * codes of docs/chat-tasks.md. Messages never carry API keys.
 */
final class ApiError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;
  private final transient ObjectNode body;

  ApiError(int status, String code, String message) {
    this(status, code, message, null);
  }

  private ApiError(int status, String code, String message, ObjectNode body) {
    super(message, null, false, false);
    this.status = status;
    this.code = Objects.requireNonNull(code, "code");
    this.body = body;
  }

  static ApiError invalidRequest(String message) {
    return new ApiError(400, "invalid_request", message);
  }

  static ApiError notFound(String message) {
    return new ApiError(404, "not_found", message);
  }

  static ApiError unauthorized(String message) {
    return new ApiError(401, "unauthorized", message);
  }

  static ApiError tooLarge(String message) {
    return new ApiError(413, "body_too_large", message);
  }

  /** The answer to a failed chat-task operation: its code, mapped to a status. */
  static ApiError of(ChatTaskException e) {
    int status =
        switch (e.code()) {
          case INVALID_REQUEST, INVALID_SETTINGS -> 400;
          case NOT_FOUND -> 404;
          case CONFLICT -> 409;
          case FAILSAFE_MESSAGES, FAILSAFE_INTERACTIONS, CONTEXT_OVERFLOW -> 422;
          case SUMMARIZE_FAILED -> upstreamStatus(e);
          case MODEL_ERROR -> upstreamStatus(e);
        };
    return new ApiError(status, e.code().wireName(), e.getMessage(), ChatTaskJson.error(e));
  }

  /** 504 when the model call timed out, 429 when the provider kept refusing for rate, else 502. */
  private static int upstreamStatus(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ModelTimeoutException) {
        return 504;
      }
      if (t instanceof ModelException m && m.httpStatus() == 429) {
        return 429;
      }
    }
    return 502;
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }

  /** The response body. */
  ObjectNode body() {
    if (body != null) {
      return body;
    }
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.putObject("error").put("code", code).put("message", getMessage());
    return o;
  }
}
