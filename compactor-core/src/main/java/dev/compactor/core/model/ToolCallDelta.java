package dev.compactor.core.model;

/**
 * A piece of a streamed tool call. The first delta of a call usually carries its id and name; later
 * ones append to its arguments.
 *
 * @param index position of the call within the response (parallel calls have distinct indices)
 * @param id the call id when this delta reveals it, else null
 * @param name the tool name when this delta reveals it, else null
 * @param argumentsDelta text to append to the call's arguments, never null (may be empty)
 */
public record ToolCallDelta(int index, String id, String name, String argumentsDelta) {
  public ToolCallDelta {
    argumentsDelta = argumentsDelta == null ? "" : argumentsDelta;
  }
}
