package dev.compactor.server;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.javalin.http.Context;
import java.io.PrintStream;
import java.time.Instant;

/**
 * One JSON line per request: time, method, route (the path template, not the path: chat ids are not
 * logged), status, error code, tenant, duration and sizes. Never an API key; message content (the
 * request body) only when content logging is on, for debugging.
 */
final class RequestLog {
  /** Request attribute: the request body as text, logged only with content logging on. */
  static final String BODY = "compactor.request.body";

  private static final int MAX_LOGGED_BODY = 4000;

  private final PrintStream out;
  private final boolean logContent;

  RequestLog(PrintStream out, boolean logContent) {
    this.out = out;
    this.logContent = logContent;
  }

  void log(Context ctx, Float millis) {
    Line o = new Line();
    o.put("ts", Instant.now().toString());
    o.put("method", ctx.method().name());
    o.put("route", route(ctx));
    o.put("status", ctx.status().getCode());
    String code = ctx.attribute(Responses.ERROR_CODE);
    if (code != null) {
      o.put("error", code);
    }
    String tenant = ctx.attribute(Auth.TENANT);
    if (tenant != null) {
      o.put("tenant", tenant);
    }
    o.put("ms", Math.round(millis * 100) / 100.0);
    long in = ctx.req().getContentLengthLong();
    if (in >= 0) {
      o.put("bytes_in", in);
    }
    Integer outBytes = ctx.attribute(Responses.RESPONSE_BYTES);
    if (outBytes != null) {
      o.put("bytes_out", outBytes);
    }
    String body = ctx.attribute(BODY);
    if (logContent && body != null) {
      o.put(
          "body",
          body.length() > MAX_LOGGED_BODY ? body.substring(0, MAX_LOGGED_BODY) + "…" : body);
    }
    write(o);
  }

  /** A handler failed unexpectedly: the exception's type and place, never its message's data. */
  void failure(Context ctx, Exception e) {
    Line o = new Line();
    o.put("ts", Instant.now().toString());
    o.put("level", "error");
    o.put("route", route(ctx));
    o.put("exception", e.getClass().getName());
    StackTraceElement[] st = e.getStackTrace();
    if (st.length > 0) {
      o.put("at", st[0].toString());
    }
    write(o);
  }

  /** The matched route template ({@code /v1/chats/{chat_id}/calls}), or "unmatched". */
  static String route(Context ctx) {
    try {
      String p = ctx.endpoint().path;
      return p == null || p.isEmpty() || p.equals("*") ? "unmatched" : p;
    } catch (RuntimeException e) {
      return "unmatched";
    }
  }

  private void write(Line o) {
    String line = o.end();
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  /**
   * A JSON object written straight into a string, one field after the other (a log line is written
   * on every request; a Jackson tree for it showed in the load benchmark's profiles).
   */
  private static final class Line {
    private final StringBuilder sb = new StringBuilder(224).append('{');

    private void key(String k) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(k).append("\":");
    }

    void put(String k, String v) {
      key(k);
      sb.append('"').append(JsonStringEncoder.getInstance().quoteAsString(v)).append('"');
    }

    void put(String k, long v) {
      key(k);
      sb.append(v);
    }

    void put(String k, double v) {
      key(k);
      sb.append(v);
    }

    String end() {
      return sb.append('}').toString();
    }
  }
}
