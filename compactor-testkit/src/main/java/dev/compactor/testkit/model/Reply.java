package dev.compactor.testkit.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One scripted answer of a {@link FakeModelServer}. An answer ({@link #text}, {@link #toolCall}) is
 * rendered in the wire format of the request that receives it, as a JSON body or, when the request
 * asked for {@code "stream": true}, as that format's event stream. An error ({@link
 * #contextLengthExceeded}, {@link #rateLimited}, …) is rendered as the provider's documented error
 * body and status. A raw reply ({@link #raw}, {@link #rawStream}) is sent byte for byte.
 *
 * <p>Replies are mutable builders: configure one, then hand it to the server; do not change it
 * afterwards.
 *
 * <pre>{@code
 * server.enqueue(Reply.text("Done.").usage(1200, 8));
 * server.enqueue(Reply.toolCall("call_1", "read_file", "{\"path\":\"a.txt\"}"));
 * server.enqueue(Reply.contextLengthExceeded());
 * }</pre>
 */
public final class Reply {
  /** A tool call in an answer. {@code arguments} is a JSON object as text. */
  public record ToolCall(String id, String name, String arguments) {
    public ToolCall {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(name, "name");
      arguments = arguments == null || arguments.isBlank() ? "{}" : arguments;
    }
  }

  /**
   * The provider errors a reply can be; each is rendered with its provider's real status and body.
   */
  public enum Error {
    /** The prompt does not fit the context window (HTTP 400, {@code context_length_exceeded}). */
    CONTEXT_LENGTH_EXCEEDED,
    /** Too many requests (HTTP 429). */
    RATE_LIMITED,
    /**
     * The provider is overloaded or failed (OpenAI HTTP 500 {@code server_error}, Anthropic 529).
     */
    OVERLOADED,
    /** The key is missing or invalid (HTTP 401). */
    AUTHENTICATION,
    /** The model does not exist (HTTP 404). */
    MODEL_NOT_FOUND,
    /** Any other rejected request (HTTP 400, {@code invalid_request_error}). */
    INVALID_REQUEST
  }

  enum Kind {
    ANSWER,
    ERROR,
    RAW,
    RAW_STREAM
  }

  final Kind kind;
  String text = "";
  String reasoning = "";
  final List<ToolCall> toolCalls = new ArrayList<>();
  Long inputTokens;
  Long outputTokens;
  long cacheReadTokens;
  long cacheWriteTokens;
  boolean compacted;
  String finishReason;
  Duration delay = Duration.ZERO;
  final Map<String, String> headers = new LinkedHashMap<>();
  Error error;
  String errorMessage;
  boolean inStream;
  int status = 200;
  String rawBody;
  List<String> rawEvents;

  private Reply(Kind kind) {
    this.kind = kind;
  }

  // ------------------------------------------------------------------ answers

  /** An assistant answer with {@code text}. */
  public static Reply text(String text) {
    Reply r = new Reply(Kind.ANSWER);
    r.text = Objects.requireNonNull(text, "text");
    return r;
  }

  /** An assistant answer that calls one tool (add more with {@link #andToolCall}). */
  public static Reply toolCall(String id, String name, String arguments) {
    return text("").andToolCall(id, name, arguments);
  }

  /** Adds a tool call to this answer (parallel calls: call it several times). */
  public Reply andToolCall(String id, String name, String arguments) {
    requireKind(Kind.ANSWER, "andToolCall");
    toolCalls.add(new ToolCall(id, name, arguments));
    return this;
  }

  /** Reasoning text before the answer (Anthropic thinking, Responses reasoning summary). */
  public Reply reasoning(String reasoning) {
    requireKind(Kind.ANSWER, "reasoning");
    this.reasoning = Objects.requireNonNull(reasoning, "reasoning");
    return this;
  }

  /**
   * The usage to report. Without it the server reports its own estimate of the prompt (see {@link
   * FakeModelServer.Builder#tokenCounter}) and of the answer.
   */
  public Reply usage(long inputTokens, long outputTokens) {
    requireKind(Kind.ANSWER, "usage");
    this.inputTokens = inputTokens;
    this.outputTokens = outputTokens;
    return this;
  }

  /** Prompt-cache tokens to report: read from the cache and written to it. */
  public Reply cache(long readTokens, long writeTokens) {
    requireKind(Kind.ANSWER, "cache");
    this.cacheReadTokens = readTokens;
    this.cacheWriteTokens = writeTokens;
    return this;
  }

  /**
   * Reports server-side compaction: a Responses {@code compaction} output item, or an Anthropic
   * {@code compaction} content block. Chat Completions has no such thing and ignores it.
   */
  public Reply compacted() {
    requireKind(Kind.ANSWER, "compacted");
    this.compacted = true;
    return this;
  }

  /**
   * The finish reason in the format's own words ({@code length}, {@code max_tokens}, …); by default
   * the natural one ({@code stop} / {@code tool_calls}, {@code end_turn} / {@code tool_use}, {@code
   * completed}).
   */
  public Reply finishReason(String finishReason) {
    requireKind(Kind.ANSWER, "finishReason");
    this.finishReason = finishReason;
    return this;
  }

  // ------------------------------------------------------------------ errors

  /**
   * The provider's context-overflow error: Chat Completions and Responses HTTP 400 with {@code code
   * context_length_exceeded}, Anthropic HTTP 400 {@code prompt is too long: N tokens > W maximum}.
   * The counts are the request's estimated size and the server's context window.
   */
  public static Reply contextLengthExceeded() {
    return error(Error.CONTEXT_LENGTH_EXCEEDED);
  }

  /** HTTP 429 with the provider's rate-limit body. */
  public static Reply rateLimited() {
    return error(Error.RATE_LIMITED);
  }

  /** The provider's overload / server error (OpenAI 500, Anthropic 529). */
  public static Reply overloaded() {
    return error(Error.OVERLOADED);
  }

  /** One of the provider errors, with its default message. */
  public static Reply error(Error error) {
    Reply r = new Reply(Kind.ERROR);
    r.error = Objects.requireNonNull(error, "error");
    return r;
  }

  /** One of the provider errors with {@code message} as its text. */
  public static Reply error(Error error, String message) {
    Reply r = error(error);
    r.errorMessage = Objects.requireNonNull(message, "message");
    return r;
  }

  /**
   * Sends this error inside the event stream, after HTTP 200, when the request streams (as
   * Responses does with an overflow and Anthropic with an overload); a non-streaming request still
   * gets it as an HTTP error.
   */
  public Reply inStream() {
    requireKind(Kind.ERROR, "inStream");
    this.inStream = true;
    return this;
  }

  // ------------------------------------------------------------------ raw

  /** Exactly {@code body} with {@code status} and {@code Content-Type: application/json}. */
  public static Reply raw(int status, String body) {
    Reply r = new Reply(Kind.RAW);
    r.status = status;
    r.rawBody = Objects.requireNonNull(body, "body");
    return r.header("Content-Type", "application/json");
  }

  /**
   * An event stream sent exactly: each element is one event's lines ({@code "event: x\ndata:
   * {...}"} or {@code "data: {...}"}), written followed by a blank line.
   */
  public static Reply rawStream(List<String> events) {
    Reply r = new Reply(Kind.RAW_STREAM);
    r.rawEvents = List.copyOf(events);
    return r.header("Content-Type", "text/event-stream");
  }

  /** {@link #rawStream} of {@code data:} events. */
  public static Reply rawData(String... jsons) {
    List<String> events = new ArrayList<>();
    for (String j : jsons) {
      events.add("data: " + j);
    }
    return rawStream(events);
  }

  // ------------------------------------------------------------------ any reply

  /** Waits this long before answering (for timeouts and cancellation). */
  public Reply delay(Duration delay) {
    this.delay = Objects.requireNonNull(delay, "delay");
    return this;
  }

  /** Adds a response header. */
  public Reply header(String name, String value) {
    headers.put(name, value);
    return this;
  }

  private void requireKind(Kind k, String what) {
    if (kind != k) {
      throw new IllegalStateException(what + " does not apply to a " + kind + " reply");
    }
  }

  @Override
  public String toString() {
    return switch (kind) {
      case ANSWER -> "Reply.text(" + text + ", toolCalls=" + toolCalls + ")";
      case ERROR -> "Reply.error(" + error + (inStream ? ", in stream" : "") + ")";
      case RAW -> "Reply.raw(" + status + ")";
      case RAW_STREAM -> "Reply.rawStream(" + rawEvents.size() + " events)";
    };
  }
}
