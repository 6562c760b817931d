package dev.compactor.models.internal;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.CompactionItem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Accumulates an assistant message from streamed pieces: text, reasoning blocks (keyed by the
 * provider's block index, with signatures), tool calls (keyed by call index) and compaction items.
 * Builds the message at any time, so a failed stream still yields what arrived. Not thread-safe.
 */
public final class MessageAssembler {
  /** A reasoning block being streamed. */
  public static final class ReasoningPart {
    final String type;
    final StringBuilder text = new StringBuilder();
    String signature;

    ReasoningPart(String type) {
      this.type = type;
    }

    public void append(String delta) {
      text.append(delta);
    }

    public void signature(String sig) {
      this.signature = sig;
    }

    public void appendSignature(String delta) {
      this.signature = signature == null ? delta : signature + delta;
    }
  }

  /** A tool call being streamed. */
  public static final class CallPart {
    String id;
    String name;
    final StringBuilder arguments = new StringBuilder();
    String finalArguments;

    public void id(String id) {
      if (id != null && !id.isEmpty()) {
        this.id = id;
      }
    }

    public void name(String name) {
      if (name != null && !name.isEmpty()) {
        this.name = name;
      }
    }

    public String id() {
      return id;
    }

    public void appendArguments(String delta) {
      arguments.append(delta);
    }

    /** Replaces the streamed arguments by the complete value the provider sent at the end. */
    public void arguments(String complete) {
      this.finalArguments = complete;
    }

    /** Whether no argument text has arrived. */
    public boolean argumentsEmpty() {
      return finalArguments == null && arguments.length() == 0;
    }

    String argumentsText() {
      return finalArguments != null ? finalArguments : arguments.toString();
    }
  }

  private final StringBuilder text = new StringBuilder();
  private final Map<Integer, ReasoningPart> reasoning = new LinkedHashMap<>();
  private final TreeMap<Integer, CallPart> calls = new TreeMap<>();
  private final List<CompactionItem> compactionItems = new ArrayList<>();
  private int nextReasoningKey = 1_000_000;

  public void appendText(String delta) {
    if (delta != null) {
      text.append(delta);
    }
  }

  /** The reasoning block under {@code key}, created with {@code type} on first use. */
  public ReasoningPart reasoning(int key, String type) {
    return reasoning.computeIfAbsent(key, k -> new ReasoningPart(type));
  }

  /** Appends reasoning text to the last block if it has {@code type}, else to a new block. */
  public void appendReasoning(String type, String delta) {
    ReasoningPart last = null;
    for (ReasoningPart p : reasoning.values()) {
      last = p;
    }
    if (last == null || !last.type.equals(type)) {
      last = reasoning(nextReasoningKey++, type);
    }
    last.append(delta);
  }

  /** The tool call under {@code index}, created on first use. */
  public CallPart call(int index) {
    return calls.computeIfAbsent(index, k -> new CallPart());
  }

  /** Whether a call with this id has arrived. */
  public boolean hasCallWithId(String id) {
    return calls.values().stream().anyMatch(c -> id.equals(c.id));
  }

  public int callCount() {
    return calls.size();
  }

  /** The highest call index so far, or -1. */
  public int lastCallIndex() {
    return calls.isEmpty() ? -1 : calls.lastKey();
  }

  public void addCompactionItem(CompactionItem item) {
    compactionItems.add(item);
  }

  public List<CompactionItem> compactionItems() {
    return List.copyOf(compactionItems);
  }

  /** Whether any text, reasoning or tool call arrived. */
  public boolean hasOutput() {
    return text.length() > 0 || !reasoning.isEmpty() || !calls.isEmpty();
  }

  /**
   * The message so far: text, reasoning blocks in arrival order, tool calls in index order (calls
   * whose id has not arrived are left out, since a call without id cannot be answered).
   */
  public Message build() {
    List<ReasoningBlock> blocks = new ArrayList<>();
    for (ReasoningPart p : reasoning.values()) {
      blocks.add(
          new ReasoningBlock(
              p.type,
              p.text.toString(),
              p.signature == null || p.signature.isEmpty() ? null : p.signature));
    }
    List<ToolCall> toolCalls = new ArrayList<>();
    for (CallPart c : calls.values()) {
      if (c.id != null) {
        toolCalls.add(new ToolCall(c.id, c.name, c.argumentsText()));
      }
    }
    return Message.builder(Role.ASSISTANT)
        .content(text.toString())
        .reasoning(blocks)
        .toolCalls(toolCalls)
        .build();
  }
}
