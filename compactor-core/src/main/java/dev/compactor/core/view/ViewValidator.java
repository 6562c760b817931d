package dev.compactor.core.view;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks the invariants every view must keep before it is sent to a model: every tool result has
 * its call, every call has its result (or is the pending last turn), the results of one assistant
 * message's calls directly follow it (parallel calls stay together), timestamps never go backwards
 * and roles are valid for the target provider. {@code uiOnly} messages are skipped: they are never
 * sent.
 *
 * <p>Stateless and thread-safe. One pass, O(n).
 */
public final class ViewValidator {

  /** Provider-specific role rules. */
  public enum Target {
    /** Only the provider-independent invariants. */
    GENERIC,
    /** OpenAI Chat Completions / Responses: no extra role rules beyond the generic ones. */
    OPENAI,
    /**
     * Anthropic Messages: system messages only before the first other message (they become the
     * top-level {@code system}), and the first other message is from the user.
     */
    ANTHROPIC
  }

  private final Target target;

  public ViewValidator() {
    this(Target.GENERIC);
  }

  public ViewValidator(Target target) {
    this.target = target;
  }

  /** Every violation in {@code messages}, in order; empty when the list is valid. */
  public List<Violation> validate(List<Message> messages) {
    List<Violation> out = new ArrayList<>();
    Map<String, Integer> callOwner = new HashMap<>(); // call id -> index of assistant message
    Set<String> answered = new HashSet<>();
    // Calls of the most recent assistant message with tool calls that still await results.
    Set<String> open = new LinkedHashSet<>();
    int openOwner = -1;
    boolean inResultBlock = false; // only tool results seen since openOwner
    Instant lastTs = null;
    boolean seenNonSystem = false;

    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      if (m.uiOnly()) {
        continue;
      }
      String mid = m.id().value();
      if (m.timestamp() != null) {
        if (lastTs != null && m.timestamp().isBefore(lastTs)) {
          out.add(
              new Violation(
                  Violation.Kind.TIMESTAMP_ORDER,
                  i,
                  mid,
                  "timestamp " + m.timestamp() + " is before the previous " + lastTs));
        }
        lastTs = m.timestamp();
      }
      if (target == Target.ANTHROPIC) {
        if (m.role() == Role.SYSTEM && seenNonSystem) {
          out.add(
              new Violation(
                  Violation.Kind.ROLE, i, mid, "system message after the conversation started"));
        }
        if (m.role() != Role.SYSTEM && !seenNonSystem && m.role() != Role.USER) {
          out.add(
              new Violation(
                  Violation.Kind.ROLE,
                  i,
                  mid,
                  "the first non-system message is " + m.role().wireName() + ", not user"));
        }
      }
      if (m.role() != Role.SYSTEM) {
        seenNonSystem = true;
      }

      if (m.role() == Role.TOOL) {
        String cid = m.toolCallId();
        if (cid == null || cid.isBlank()) {
          out.add(
              new Violation(
                  Violation.Kind.TOOL_RESULT_WITHOUT_ID, i, mid, "tool result has no call id"));
          continue;
        }
        Integer owner = callOwner.get(cid);
        if (owner == null) {
          out.add(
              new Violation(
                  Violation.Kind.ORPHAN_RESULT,
                  i,
                  mid,
                  "result for call " + cid + " that no earlier assistant message made"));
        } else if (!answered.add(cid)) {
          out.add(
              new Violation(
                  Violation.Kind.DUPLICATE_RESULT, i, mid, "second result for call " + cid));
        } else if (!(inResultBlock && owner == openOwner)) {
          out.add(
              new Violation(
                  Violation.Kind.SPLIT_PARALLEL,
                  i,
                  mid,
                  "result for call "
                      + cid
                      + " does not directly follow its call (message "
                      + messages.get(owner).id()
                      + ") and its sibling results"));
        } else {
          open.remove(cid);
        }
        continue;
      }

      // A non-tool message closes the previous result block.
      closeBlock(messages, open, openOwner, out);
      open.clear();
      inResultBlock = false;
      openOwner = -1;

      if (m.role() == Role.ASSISTANT && m.hasToolCalls()) {
        for (ToolCall c : m.toolCalls()) {
          if (callOwner.putIfAbsent(c.id(), i) != null) {
            out.add(
                new Violation(
                    Violation.Kind.DUPLICATE_CALL,
                    i,
                    mid,
                    "call id "
                        + c.id()
                        + " already used by message "
                        + messages.get(callOwner.get(c.id())).id()));
          } else {
            open.add(c.id());
          }
        }
        openOwner = i;
        inResultBlock = true;
      }
    }
    // Calls still open at the end are the pending last turn: allowed.
    return out;
  }

  private static void closeBlock(
      List<Message> messages, Set<String> open, int owner, List<Violation> out) {
    if (owner < 0 || open.isEmpty()) {
      return;
    }
    Message a = messages.get(owner);
    out.add(
        new Violation(
            Violation.Kind.MISSING_RESULT,
            owner,
            a.id().value(),
            "no result for call(s) "
                + String.join(", ", open)
                + " before the conversation went on"));
  }

  /** True when {@code messages} has no violation. */
  public boolean isValid(List<Message> messages) {
    return validate(messages).isEmpty();
  }
}
