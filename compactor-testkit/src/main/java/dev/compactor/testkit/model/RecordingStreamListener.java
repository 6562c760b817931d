package dev.compactor.testkit.model;

import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.model.ToolCallDelta;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A {@link StreamListener} that records every callback in order, for assertions on what a client
 * delivered while streaming.
 *
 * <pre>{@code
 * RecordingStreamListener listener = new RecordingStreamListener();
 * ChatResponse r = model.stream(request, listener);
 * assertThat(listener.text()).isEqualTo(r.message().content());
 * assertThat(listener.completions()).containsExactly(r);
 * }</pre>
 *
 * <p>Thread-safe, although {@link dev.compactor.core.model.ChatModel#stream} calls a listener from
 * one thread only.
 */
public final class RecordingStreamListener implements StreamListener {
  /** One callback: its kind and its argument. */
  public record Event(Kind kind, Object value) {}

  /** The callbacks of {@link StreamListener}. */
  public enum Kind {
    TEXT,
    REASONING,
    TOOL_CALL,
    USAGE,
    COMPACTING,
    COMPLETE
  }

  private final List<Event> events = Collections.synchronizedList(new ArrayList<>());

  @Override
  public void onText(String delta) {
    events.add(new Event(Kind.TEXT, delta));
  }

  @Override
  public void onReasoning(String delta) {
    events.add(new Event(Kind.REASONING, delta));
  }

  @Override
  public void onToolCall(ToolCallDelta delta) {
    events.add(new Event(Kind.TOOL_CALL, delta));
  }

  @Override
  public void onUsage(Usage usage) {
    events.add(new Event(Kind.USAGE, usage));
  }

  @Override
  public void onCompacting() {
    events.add(new Event(Kind.COMPACTING, null));
  }

  @Override
  public void onComplete(ChatResponse response) {
    events.add(new Event(Kind.COMPLETE, response));
  }

  /** Every callback so far, in order. */
  public List<Event> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** The kinds of the callbacks so far, in order. */
  public List<Kind> kinds() {
    return events().stream().map(Event::kind).toList();
  }

  /** The text deltas, in order. */
  public List<String> textDeltas() {
    return values(Kind.TEXT, String.class);
  }

  /** The text deltas joined. */
  public String text() {
    return String.join("", textDeltas());
  }

  /** The reasoning deltas joined. */
  public String reasoning() {
    return String.join("", values(Kind.REASONING, String.class));
  }

  /** The tool-call deltas, in order. */
  public List<ToolCallDelta> toolCallDeltas() {
    return values(Kind.TOOL_CALL, ToolCallDelta.class);
  }

  /** The usages reported, in order (the last is final). */
  public List<Usage> usages() {
    return values(Kind.USAGE, Usage.class);
  }

  /** How many times the provider signalled compaction. */
  public int compactingSignals() {
    return (int) events().stream().filter(e -> e.kind() == Kind.COMPACTING).count();
  }

  /**
   * The responses passed to {@code onComplete} (one for a finished stream, none for a failed one).
   */
  public List<ChatResponse> completions() {
    return values(Kind.COMPLETE, ChatResponse.class);
  }

  /**
   * The callbacks of the given kinds (all kinds when none are given), in order, one line each:
   * {@code text:<delta>}, {@code reasoning:<delta>}, {@code
   * tool:<index>:<id>:<name>:<argumentsDelta>}, {@code usage:<totalInput>/<output>}, {@code
   * compacting} and {@code complete:<finishReason>}; for asserting the interleaving of a stream in
   * one {@code containsExactly}.
   */
  public List<String> log(Kind... kinds) {
    Set<Kind> shown = kinds.length == 0 ? EnumSet.allOf(Kind.class) : EnumSet.of(kinds[0], kinds);
    return events().stream().filter(e -> shown.contains(e.kind())).map(e -> line(e)).toList();
  }

  private static String line(Event e) {
    return switch (e.kind()) {
      case TEXT -> "text:" + e.value();
      case REASONING -> "reasoning:" + e.value();
      case TOOL_CALL -> {
        ToolCallDelta d = (ToolCallDelta) e.value();
        yield "tool:" + d.index() + ":" + d.id() + ":" + d.name() + ":" + d.argumentsDelta();
      }
      case USAGE -> {
        Usage u = (Usage) e.value();
        yield "usage:" + u.totalInput() + "/" + u.output();
      }
      case COMPACTING -> "compacting";
      case COMPLETE -> "complete:" + ((ChatResponse) e.value()).finishReason();
    };
  }

  private <T> List<T> values(Kind kind, Class<T> type) {
    return events().stream().filter(e -> e.kind() == kind).map(e -> type.cast(e.value())).toList();
  }
}
