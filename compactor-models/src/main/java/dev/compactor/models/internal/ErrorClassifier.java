package dev.compactor.models.internal;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.AuthenticationException;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.NonRetryableModelException;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.UnknownModelException;
import dev.compactor.wire.error.ErrorFields;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The status-and-fields rules every provider mapper shares. In order: 401/403 or an authentication
 * type → {@link AuthenticationException}; an overflow per {@link OverflowClassifier} (any status
 * but 429) → {@link ContextOverflowException}; 429 → retryable unless the quota or credit is
 * exhausted; 404 (or code {@code model_not_found}) about a model → {@link UnknownModelException};
 * 408, 409, 5xx → retryable; other statuses → non-retryable. An error inside a stream (status 200)
 * is retryable when its type or numeric code says server trouble, overload or rate limit, else
 * non-retryable.
 */
public final class ErrorClassifier {
  private ErrorClassifier() {}

  private static final Set<String> AUTH_TYPES =
      Set.of("authentication_error", "permission_error", "invalid_api_key");
  private static final Set<String> TRANSIENT_TYPES =
      Set.of(
          "server_error",
          "api_error",
          "overloaded_error",
          "rate_limit_error",
          "rate_limit_exceeded",
          "internal_error",
          "internal_server_error",
          "service_unavailable",
          "timeout",
          "timeout_error");
  private static final Set<String> QUOTA_CODES =
      Set.of("insufficient_quota", "billing_hard_limit_reached", "billing_not_active");

  /**
   * Builds the exception.
   *
   * @param mapper provider name and redactor
   * @param status HTTP status; 200 for an in-stream error
   * @param f the error's fields
   * @param body the raw body or event text (redacted and cut here)
   */
  public static ModelException classify(
      ErrorMapper mapper,
      int status,
      ErrorFields f,
      String body,
      Duration retryAfter,
      String model,
      Message partial) {
    Redactor r = mapper.redactor();
    String provider = mapper.provider();
    ModelError error =
        new ModelError(provider, status, r.redact(f.type()), r.redact(f.code()), r.redact(body));
    int effective = status;
    if (status == 200 && f.code() != null && f.code().matches("[1-5]\\d\\d")) {
      effective = Integer.parseInt(f.code());
    }
    String msg = describe(provider, status, f, body, r);
    String type = lower(f.type());
    String code = lower(f.code());

    if (effective == 401 || effective == 403 || in(AUTH_TYPES, type) || in(AUTH_TYPES, code)) {
      return new AuthenticationException(msg, error, null);
    }
    if (effective != 429) {
      Optional<OverflowClassifier.Match> overflow =
          OverflowClassifier.classify(
              new OverflowClassifier.Signals(
                  f.message(), f.type(), f.code(), null, f.promptTokens(), f.contextWindow()));
      if (overflow.isPresent()) {
        return new ContextOverflowException(
            msg,
            error,
            overflow.get().promptTokens(),
            overflow.get().contextWindow(),
            partial,
            null);
      }
    }
    if (effective == 429 || "rate_limit_error".equals(type) || "rate_limit_exceeded".equals(code)) {
      if (in(QUOTA_CODES, code) || in(QUOTA_CODES, type) || quotaMessage(f.message())) {
        return new NonRetryableModelException(msg, error, partial, null);
      }
      return new RetryableModelException(msg, error, retryAfter, partial, null);
    }
    if (isUnknownModel(effective, type, code, f.message())) {
      return new UnknownModelException(msg, error, model, null);
    }
    if (effective == 408 || effective == 409 || effective >= 500) {
      return new RetryableModelException(msg, error, retryAfter, partial, null);
    }
    if (status == 200 && effective == 200) {
      if (in(TRANSIENT_TYPES, type) || in(TRANSIENT_TYPES, code)) {
        return new RetryableModelException(msg, error, retryAfter, partial, null);
      }
      if (type == null && code == null) {
        // an unexplained in-stream failure is more often a server hiccup than a bad request
        return new RetryableModelException(msg, error, retryAfter, partial, null);
      }
    }
    return new NonRetryableModelException(msg, error, partial, null);
  }

  /** A malformed 2xx body or stream event: non-retryable. */
  public static ModelException malformed(
      ErrorMapper mapper, int status, String what, String body, Message partial, Throwable cause) {
    Redactor r = mapper.redactor();
    String excerpt = r.redact(body);
    String msg =
        mapper.provider()
            + ": malformed "
            + what
            + (cause == null || cause.getMessage() == null
                ? ""
                : ": " + r.redact(firstLine(cause.getMessage())))
            + "; body starts: "
            + cut(excerpt, 200);
    return new NonRetryableModelException(
        msg, new ModelError(mapper.provider(), status, null, null, excerpt), partial, cause);
  }

  /** A stream that ended before the response was complete: retryable, with the partial output. */
  public static RetryableModelException incomplete(
      ErrorMapper mapper, String detail, Message partial) {
    return new RetryableModelException(
        mapper.provider() + ": stream ended before the response was complete (" + detail + ")",
        new ModelError(mapper.provider(), 200, null, null, ""),
        null,
        partial,
        null);
  }

  private static boolean isUnknownModel(int status, String type, String code, String message) {
    if ("model_not_found".equals(code) || "model_not_found".equals(type)) {
      return true;
    }
    return status == 404 && message != null && message.toLowerCase(Locale.ROOT).contains("model");
  }

  private static boolean quotaMessage(String message) {
    if (message == null) {
      return false;
    }
    String m = message.toLowerCase(Locale.ROOT);
    return m.contains("exceeded your current quota") || m.contains("credit balance is too low");
  }

  private static String describe(
      String provider, int status, ErrorFields f, String body, Redactor r) {
    StringBuilder sb = new StringBuilder(provider).append(": ");
    sb.append(status == 200 ? "error reported after HTTP 200" : "HTTP " + status);
    if (f.type() != null || f.code() != null) {
      sb.append(" (");
      if (f.type() != null) {
        sb.append(f.type());
      }
      if (f.code() != null && !f.code().equals(f.type())) {
        sb.append(f.type() != null ? ", code " : "code ").append(f.code());
      }
      sb.append(')');
    }
    sb.append(": ");
    if (f.message() != null && !f.message().isBlank()) {
      sb.append(f.message().strip());
    } else if (body != null && !body.isBlank()) {
      sb.append("no error message; body starts: ").append(cut(body.strip(), 200));
    } else {
      sb.append("no error message and an empty body");
    }
    return r.redact(sb.toString());
  }

  private static boolean in(Set<String> set, String value) {
    return value != null && set.contains(value);
  }

  private static String lower(String s) {
    return s == null ? null : s.trim().toLowerCase(Locale.ROOT);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  static String cut(String s, int max) {
    if (s == null) {
      return "";
    }
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }
}
