package dev.compactor.chat.memory;

/** The ids of tool calls as a framework's messages carry them into a compacting memory. */
public final class ToolCallIds {
  private ToolCallIds() {}

  /**
   * {@code id}, the id of a call of {@code tool} or of its result.
   *
   * @throws IllegalArgumentException when it is missing or blank: compaction pairs every result
   *     with its call by this id
   */
  public static String require(String id, String tool) {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException(
          "tool "
              + tool
              + ": a tool call or result without an id cannot be paired; a compacting memory"
              + " needs the ids the model gives its tool calls");
    }
    return id;
  }
}
