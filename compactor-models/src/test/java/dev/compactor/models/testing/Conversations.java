package dev.compactor.models.testing;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.ToolSpec;
import java.util.ArrayList;
import java.util.List;

/** The conversations the wire-format tests send. */
public final class Conversations {
  private Conversations() {}

  public static final ToolSpec WEATHER =
      new ToolSpec(
          "get_weather",
          "Current weather",
          "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},"
              + "\"required\":[\"city\"]}");
  public static final ToolSpec TIME = new ToolSpec("get_time", "", "");

  /**
   * System prompt, a question answered by two parallel tool calls (with a signed thinking block),
   * both results, an answer, a uiOnly note, a follow-up question.
   */
  public static List<Message> weather() {
    return List.of(
        Message.system("You are terse."),
        Message.user("Weather in Oslo and Paris?"),
        Message.builder(Role.ASSISTANT)
            .reasoning(List.of(new ReasoningBlock("thinking", "Two cities: two calls.", "sig-1")))
            .toolCalls(
                List.of(
                    new ToolCall("call_1", "get_weather", "{\"city\":\"Oslo\"}"),
                    new ToolCall("call_2", "get_weather", "{\"city\":\"Paris\"}")))
            .build(),
        Message.toolResult("call_1", "-3 C"),
        Message.toolResult("call_2", "12 C"),
        Message.assistant("Oslo -3 C, Paris 12 C."),
        Message.builder(Role.USER).content("(shown to the user only)").uiOnly(true).build(),
        Message.user("Thanks. Now the time?"));
  }

  /** {@link #weather()} whose answer (the sixth message) carries {@code items} from a response. */
  public static List<Message> weatherWithCompaction(List<CompactionItem> items) {
    List<Message> msgs = new ArrayList<>(weather());
    Message answer = msgs.get(5);
    msgs.set(
        5,
        answer.toBuilder()
            .metadata(ProviderCompaction.withItems(answer.metadata(), items))
            .build());
    return msgs;
  }
}
