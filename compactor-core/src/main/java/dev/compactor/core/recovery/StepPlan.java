package dev.compactor.core.recovery;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.tokens.TokenCounter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The steps of one message list and which of them overflow recovery may remove.
 *
 * <p>A step starts at every provider-visible message that is not a tool result and runs to the next
 * such message: an assistant or user turn with the tool results (and UI-only messages) after it.
 * When the conversation carries reasoning blocks, an assistant message without reasoning does not
 * start a unit of its own (it joins the unit before), so a removed run is never followed by a tool
 * loop whose thinking block was removed — the rule the summarize strategy keeps for its tail.
 *
 * <p>Protected units: the head (leading system messages, widened to {@code keepHead} messages and
 * to whole units), every unit with a pinned message, the unit of the newest user request (recovery
 * markers, checkpoints and reminders are not requests) and the final unit (the last visible
 * non-tool message with what follows, a pending call included).
 */
final class StepPlan {
  private final List<Message> src;
  private final int[] starts; // unit u = [starts[u], starts[u + 1]); starts[units] = n
  private final int[] unitOf;
  private final boolean[] prot;
  private final int headEnd;
  private final int newestUser;
  private final int finalUnit;

  StepPlan(List<Message> src, int keepHead) {
    this.src = List.copyOf(src);
    int n = src.size();
    boolean thinking = src.stream().anyMatch(m -> !m.uiOnly() && !m.reasoning().isEmpty());
    List<Integer> s = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Message m = src.get(i);
      boolean start =
          i == 0
              || (!m.uiOnly()
                  && m.role() != Role.TOOL
                  && !(thinking && m.role() == Role.ASSISTANT && m.reasoning().isEmpty()));
      if (start) {
        s.add(i);
      }
    }
    s.add(n);
    starts = s.stream().mapToInt(Integer::intValue).toArray();
    int units = starts.length - 1;
    unitOf = new int[n];
    for (int u = 0; u < units; u++) {
      for (int i = starts[u]; i < starts[u + 1]; i++) {
        unitOf[i] = u;
      }
    }
    prot = new boolean[Math.max(units, 0)];

    int lead = 0;
    while (lead < n && (src.get(lead).uiOnly() || src.get(lead).role() == Role.SYSTEM)) {
      lead++;
    }
    // Trailing UI-only messages of the system run are not part of the head.
    while (lead > 0 && src.get(lead - 1).uiOnly()) {
      lead--;
    }
    int head = Math.max(lead, Math.min(keepHead, n));
    headEnd = head == 0 ? 0 : starts[unitOf[head - 1] + 1];
    for (int u = 0; u < units && starts[u] < headEnd; u++) {
      prot[u] = true;
    }

    int user = -1;
    int last = -1;
    for (int i = 0; i < n; i++) {
      Message m = src.get(i);
      if (m.uiOnly()) {
        continue;
      }
      if (m.pinned()) {
        prot[unitOf[i]] = true;
      }
      if (m.role() != Role.TOOL) {
        last = i;
      }
      if (m.role() == Role.USER && isRequest(m)) {
        user = i;
      }
    }
    newestUser = user;
    if (user >= 0) {
      prot[unitOf[user]] = true;
    }
    finalUnit = last >= 0 ? unitOf[last] : units - 1;
    for (int u = Math.max(finalUnit, 0); u < units; u++) {
      prot[u] = true;
    }
  }

  /** Whether a user message is a request (not a marker, checkpoint or context reminder). */
  static boolean isRequest(Message m) {
    Map<String, Object> extra = m.metadata().extra();
    return !extra.containsKey(OverflowRecovery.MARKER_KEY)
        && !SummarizeProvider.isCheckpoint(m)
        && !extra.containsKey(AutoCompactor.REMINDER_KEY);
  }

  List<Message> source() {
    return src;
  }

  int size() {
    return src.size();
  }

  int units() {
    return starts.length - 1;
  }

  int start(int unit) {
    return starts[unit];
  }

  int end(int unit) {
    return starts[unit + 1];
  }

  boolean isProtectedIndex(int i) {
    return prot[unitOf[i]];
  }

  boolean isProtected(int unit) {
    return prot[unit];
  }

  /** End (exclusive) of the protected head. */
  int headEnd() {
    return headEnd;
  }

  /** Index of the newest user request, or -1. */
  int newestUser() {
    return newestUser;
  }

  /** Start of the final unit. */
  int finalStart() {
    return finalUnit < 0 ? src.size() : starts[finalUnit];
  }

  /** Units recovery may remove, oldest first. */
  List<Integer> droppable() {
    List<Integer> out = new ArrayList<>();
    for (int u = 0; u < units(); u++) {
      if (!prot[u]) {
        out.add(u);
      }
    }
    return out;
  }

  /** Tokens of a unit as {@code current} holds it. */
  long unitTokens(Message[] current, int unit, TokenCounter counter) {
    long t = 0;
    for (int i = starts[unit]; i < starts[unit + 1]; i++) {
      t += counter.countMessage(current[i]);
    }
    return t;
  }

  /** A compaction description of the state: counts of what is changed. */
  record Built(CompactionResult result, int markers, int droppedUnits, int changedVisible) {}

  /**
   * The message list for {@code current} (one message per source position, trimmed or not) with the
   * {@code dropped} units replaced by one marker per contiguous run, as a result on the source.
   */
  Built build(Message[] current, boolean[] dropped) {
    List<Message> out = new ArrayList<>(src.size());
    Map<MessageId, List<MessageId>> prov = new LinkedHashMap<>();
    List<Integer> run = new ArrayList<>();
    int markers = 0;
    int droppedUnits = 0;
    int changed = 0;
    for (int u = 0; u < units(); u++) {
      if (dropped[u]) {
        droppedUnits++;
        for (int i = starts[u]; i < starts[u + 1]; i++) {
          run.add(i);
        }
        continue;
      }
      if (!run.isEmpty()) {
        changed += flush(run, out, prov);
        markers++;
      }
      for (int i = starts[u]; i < starts[u + 1]; i++) {
        Message m = current[i];
        Message o = src.get(i);
        out.add(m);
        if (m != o && !m.equals(o)) {
          prov.put(m.id(), List.of(o.id()));
          if (!o.uiOnly()) {
            changed++;
          }
        }
      }
    }
    if (!run.isEmpty()) {
      changed += flush(run, out, prov);
      markers++;
    }
    return new Built(
        CompactionResult.of(src, out, List.of(), prov), markers, droppedUnits, changed);
  }

  /** Appends the marker of a removed run; returns the visible source messages it replaces. */
  private int flush(List<Integer> run, List<Message> out, Map<MessageId, List<MessageId>> prov) {
    List<MessageId> covers = new ArrayList<>(run.size());
    int visible = 0;
    long represented = 0;
    Instant ts = null;
    for (int i : run) {
      Message m = src.get(i);
      covers.add(m.id());
      if (ts == null) {
        ts = m.timestamp();
      }
      if (!m.uiOnly()) {
        visible++;
        Object prior = m.metadata().extra().get(OverflowRecovery.MARKER_KEY);
        represented += prior instanceof Number k ? k.longValue() : 1;
      }
    }
    String id =
        "overflow-"
            + Digests.sha256Hex(
                    String.join("\u0000", covers.stream().map(MessageId::value).toList()))
                .substring(0, 12);
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put(OverflowRecovery.MARKER_KEY, represented);
    Message marker =
        Message.builder(Role.USER)
            .id(id)
            .content(
                "["
                    + represented
                    + (represented == 1 ? " earlier message" : " earlier messages")
                    + " removed to fit the context window; recoverable from the master log as "
                    + id
                    + "]")
            .timestamp(ts)
            .metadata(new MessageMetadata(null, null, null, null, extra))
            .build();
    out.add(marker);
    prov.put(marker.id(), List.copyOf(covers));
    run.clear();
    return visible;
  }
}
