package dev.compactor.models.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.StreamListener;
import dev.compactor.wire.json.Json;

/**
 * Base of the stream sessions that assemble the streamed message as it arrives: the attempt's
 * client, request, model and listener, the {@link MessageAssembler}, what reached the listener and
 * the model the provider reported. It skips events without data, reads event data as JSON objects
 * (anything else is malformed), gives what arrived so far as the partial message, fails an
 * incomplete stream with the marker it ended without, and keeps the whole response once it arrived.
 * Not thread-safe; one per attempt.
 *
 * @param <C> the client, for its error mapper, provider and wire specifics
 */
public abstract class AssembledStream<C extends HttpChatModel> implements StreamSession {
  protected final C client;
  protected final ChatRequest request;
  protected final String model;
  protected final StreamListener listener;
  protected final MessageAssembler assembler = new MessageAssembler();

  /** Whether anything reached the listener. */
  protected boolean delivered;

  /** The model as the provider reported it, or null. */
  protected String reported;

  private final String endMarker;

  /** The whole response, once the stream brought it. */
  private ChatResponse response;

  /**
   * @param model the model the request went to
   * @param endMarker what a complete stream ends with, for the error of one that ends without it,
   *     e.g. {@code "no message_stop"}
   */
  protected AssembledStream(
      C client, ChatRequest request, String model, StreamListener listener, String endMarker) {
    this.client = client;
    this.request = request;
    this.model = model;
    this.listener = listener;
    this.endMarker = endMarker;
  }

  /**
   * Handles one event whose data is not empty (events with empty data are keep-alives and skipped).
   *
   * @param data the event's data, stripped
   * @return false when the stream is complete and reading should stop
   */
  protected abstract boolean onData(SseEvent event, String data);

  @Override
  public final boolean onEvent(SseEvent event) {
    String data = event.data().strip();
    return data.isEmpty() || onData(event, data);
  }

  /**
   * Whether the stream brought a whole response (checked when the body ends): by default, whether
   * one was {@linkplain #completed given}.
   */
  protected boolean complete() {
    return response != null;
  }

  /** Keeps {@code r}, the whole response the stream brought, as the {@link #response()}. */
  protected final void completed(ChatResponse r) {
    response = r;
  }

  /** The response {@linkplain #completed given}, or null before the stream brought it. */
  @Override
  public ChatResponse response() {
    return response;
  }

  /**
   * {@code data} parsed as a JSON object.
   *
   * @param what the event's name in the error, e.g. {@code "stream event"}
   * @throws dev.compactor.core.model.ModelException (malformed) when it is not a JSON object
   */
  protected final JsonNode object(String data, String what) {
    JsonNode node = Json.tryParse(data);
    if (node == null || !node.isObject()) {
      throw ErrorClassifier.malformed(client.errorMapper(), 200, what, data, partial(), null);
    }
    return node;
  }

  /** An event's type: its {@code type} field, else the SSE event name, else empty. */
  protected static String type(JsonNode node, SseEvent event) {
    String type = Json.scalar(node, "type");
    if (type == null) {
      type = event.event() == null ? "" : event.event();
    }
    return type;
  }

  @Override
  public final void onEnd() {
    if (!complete()) {
      throw ErrorClassifier.incomplete(client.errorMapper(), endMarker, partial());
    }
  }

  @Override
  public final Message partial() {
    return Requests.partial(assembler, client.provider(), reported != null ? reported : model);
  }

  @Override
  public final boolean delivered() {
    return delivered;
  }
}
