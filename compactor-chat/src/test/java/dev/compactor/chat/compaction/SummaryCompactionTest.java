package dev.compactor.chat.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.chat.internal.Reasons;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.chat.store.ArchivedMessage;
import dev.compactor.chat.store.SummaryRecord;
import dev.compactor.chat.testing.ChatTaskFixture;
import dev.compactor.chat.testing.ModelServer;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Summary compaction as the specification describes it, end to end. */
class SummaryCompactionTest extends ChatTaskFixture {
  private static final String SETTINGS =
      """
      "compaction": {"summary": {
        "activation": {"message_count": 10},
        "message_selection": {"main_system_message": "exclude", "keep_last_messages": 2},
        "summarization": {"model": "openai/gpt-4o-mini", "max_output_tokens": 300}}}
      """;

  /** A chat of a main system message and {@code n} turns, stored without model calls. */
  private void prefill(int n) {
    call(
        "{\"submit_to_model\": false, \"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\":"
            + " \"system\", \"content\": \"You are helpful.\"}]}");
    call("{\"submit_to_model\": false, \"messages\": " + turns(n) + "}");
  }

  /** The summary report of a call's details. */
  private static JsonNode summaryReport(JsonNode result) {
    return result.at("/_gpt_chat_details/compaction/summary");
  }

  /** Why the summary report says the call did not summarize. */
  private static String summaryReason(JsonNode result) {
    return summaryReport(result).path("reason").asText();
  }

  @Test
  void activatedByMessageCount_summarizesTheExistingHistoryBeforeTheModelCall() {
    prefill(11);
    List<Message> before = history();

    JsonNode r =
        callJson("{" + SETTINGS + ", \"messages\": [{\"role\": \"user\", \"content\": \"next\"}]}");

    // The report, exactly as the specification shows it.
    JsonNode summary = summaryReport(r);
    assertThat(summary.fieldNames())
        .toIterable()
        .containsExactly(
            "enabled",
            "activated",
            "message_count_before",
            "message_count_after",
            "gpt_summary_uuid");
    assertThat(summary.get("enabled").asBoolean()).isTrue();
    assertThat(summary.get("activated").asBoolean()).isTrue();
    assertThat(summary.get("message_count_before").asInt()).isEqualTo(12);
    assertThat(summary.get("message_count_after").asInt()).isEqualTo(4);
    assertThat(summary.get("gpt_summary_uuid").asText()).isEqualTo("sum-1");
    assertThat(r.at("/_gpt_chat_details/compaction").has("provider")).isFalse();

    // The summary call saw the summarized messages only, before the call's new message.
    assertThat(server.summaryCalls()).hasSize(1);
    RecordedRequest sc = server.summaryCalls().get(0);
    assertThat(sc.json().get("model").asText()).isEqualTo("gpt-4o-mini");
    assertThat(sc.json().get("max_output_tokens").asInt()).isEqualTo(300);
    String transcript = sc.json().toString();
    assertThat(transcript)
        .contains("m0")
        .contains("m8")
        .doesNotContain("m9")
        .doesNotContain("next");
    assertThat(server.calls().indexOf(sc))
        .isLessThan(server.calls().indexOf(server.lastChatCall()));

    // The model saw the shorter history on the same call.
    assertThat(server.lastChatCall().texts())
        .containsExactly(
            "system: You are helpful.\n\nSummary of the earlier part of this conversation:\n\n"
                + "SUMMARY of 9 messages",
            "assistant: m9",
            "user: m10",
            "user: next");

    // The chat: main system message, summary, kept messages, the new message and the reply.
    assertThat(history())
        .extracting(Message::content)
        .containsExactly(
            "You are helpful.",
            "Summary of the earlier part of this conversation:\n\nSUMMARY of 9 messages",
            "m9",
            "m10",
            "next",
            "echo: next");
    assertThat(history().get(1).role()).isEqualTo(Role.SYSTEM);

    // Nothing is lost: the summarized messages are archived, the record describes the summary.
    assertThat(store.archivedMessages(KEY))
        .extracting(ArchivedMessage::message)
        .containsExactlyElementsOf(before.subList(1, 10));
    SummaryRecord record = store.summaries(KEY).get(0);
    assertThat(record.uuid()).isEqualTo("sum-1");
    assertThat(record.trigger()).isEqualTo(SummaryRecord.Trigger.AUTO);
    assertThat(record.model()).isEqualTo("openai/gpt-4o-mini");
    assertThat(record.coveredMessageIds())
        .containsExactlyElementsOf(
            before.subList(1, 10).stream().map(m -> m.id().value()).toList());
    assertThat(record.summaryText()).isEqualTo("SUMMARY of 9 messages");
    assertThat(record.usage().input()).isEqualTo(300);
    assertThat(record.usage().output()).isEqualTo(40);
    // gpt-4o-mini: $0.15 per million input, $0.60 per million output tokens.
    assertThat(record.costUsd()).isEqualByComparingTo("0.000069");

    // The summary call's usage and cost are reported apart from the chat's own call.
    assertThat(r.at("/_gpt_chat_details/summary_usage/prompt_tokens").asLong()).isEqualTo(300);
    assertThat(r.at("/_gpt_chat_details/summary_usage/cost_usd").decimalValue())
        .isEqualByComparingTo("0.000069");
    assertThat(r.at("/usage/model").asText()).isEqualTo("openai/gpt-5-mini");
    assertThat(r.at("/usage/prompt_tokens").asLong()).isEqualTo(100 + 10 * 3);
    assertThat(r.at("/_gpt_chat_details/interactions").asInt())
        .as("the summary call is not one of the chat's interactions")
        .isEqualTo(1);
  }

  @Test
  void belowThreshold_reportsWhy_andTheSettingsStick() {
    prefill(4);

    JsonNode r =
        callJson("{" + SETTINGS + ", \"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}");
    JsonNode summary = summaryReport(r);
    assertThat(summary.fieldNames()).toIterable().containsExactly("enabled", "activated", "reason");
    assertThat(summary.get("activated").asBoolean()).isFalse();
    assertThat(summary.get("reason").asText()).isEqualTo(Reasons.BELOW_THRESHOLD);

    // Later calls carry no settings: they still apply.
    call("{\"messages\": [{\"role\": \"user\", \"content\": \"b\"}]}");
    call("{\"messages\": [{\"role\": \"user\", \"content\": \"c\"}]}");
    JsonNode later = callJson("{\"messages\": [{\"role\": \"user\", \"content\": \"d\"}]}");
    assertThat(summaryReport(later).path("activated").asBoolean()).isTrue();
    assertThat(server.summaryCalls()).hasSize(1);
  }

  @Test
  void activatedByTokenCount_ofTheMostRecentModelCall_promptPlusCompletion() {
    String settings =
        """
        "compaction": {"summary": {"activation": {"message_count": false, "token_count": 150},
                                   "message_selection": {"keep_last_messages": 1}}}
        """;
    // Prompt tokens are 100 + 10 per input item, completion 5.
    JsonNode first =
        callJson(
            "{\"model\": \"openai/gpt-5-mini\", "
                + settings
                + ", \"messages\": [{\"role\": \"user\", \"content\": \"1\"}]}"); // 110 + 5
    assertThat(summaryReason(first)).isEqualTo(Reasons.BELOW_THRESHOLD);
    call("{\"messages\": [{\"role\": \"user\", \"content\": \"2\"}]}"); // measured 115; 130 + 5
    call("{\"messages\": [{\"role\": \"user\", \"content\": \"3\"}]}"); // measured 135; 150 + 5
    assertThat(server.summaryCalls()).isEmpty();

    JsonNode fourth = callJson("{\"messages\": [{\"role\": \"user\", \"content\": \"4\"}]}");

    assertThat(summaryReport(fourth).path("activated").asBoolean()).isTrue();
    assertThat(summaryReport(fourth).path("message_count_before").asInt()).isEqualTo(6);
    assertThat(summaryReport(fourth).path("message_count_after").asInt()).isEqualTo(2);
    // The next call measures the shorter context: below the threshold again.
    JsonNode fifth = callJson("{\"messages\": [{\"role\": \"user\", \"content\": \"5\"}]}");
    assertThat(summaryReason(fifth)).isEqualTo(Reasons.BELOW_THRESHOLD);
  }

  @Test
  void notOnCallsThatDoNotGoToTheModel() {
    prefill(11);
    JsonNode r =
        callJson(
            "{"
                + SETTINGS
                + ", \"submit_to_model\": false, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}");
    assertThat(summaryReason(r)).isEqualTo(Reasons.NOT_SUBMITTED);
    assertThat(server.calls()).isEmpty();
  }

  @Test
  void notOnACallBringingAToolResult_butOnTheNextNormalCall_withoutSplittingTheCallFromItsResult() {
    String settings =
        """
        "compaction": {"summary": {"activation": {"message_count": 5},
                                   "message_selection": {"keep_last_messages": 2}}}
        """;
    server.handler(
        c ->
            ModelServer.isSummary(c)
                ? ModelServer.defaultReply(c)
                : "weather?".equals(c.lastUserText())
                        && c.texts().stream().noneMatch(t -> t.startsWith("function_call_output"))
                    ? Reply.toolCall("call_1", "get_weather", "{}")
                    : Reply.text("Sunny."));
    prefill(2); // system, m0, m1
    call("{" + settings + ", \"messages\": [{\"role\": \"user\", \"content\": \"weather?\"}]}");
    assertThat(history()).hasSize(5); // ..., weather?, tool call

    JsonNode withResult =
        callJson(
            "{\"messages\": [{\"role\": \"tool\", \"tool_call_id\": \"call_1\", \"content\": \"sunny\"}]}");
    assertThat(summaryReason(withResult)).isEqualTo(Reasons.TOOL_RESULT);
    assertThat(server.summaryCalls()).isEmpty();
    assertThat(history()).hasSize(7); // ..., tool result, "Sunny."

    JsonNode next = callJson("{\"messages\": [{\"role\": \"user\", \"content\": \"thanks\"}]}");

    assertThat(summaryReport(next).path("activated").asBoolean()).isTrue();
    // Keeping the last two messages would split the tool result from its call: the kept window
    // grows backwards to the assistant message that made the call.
    assertThat(history())
        .extracting(m -> m.role().wireName() + ":" + m.content())
        .containsExactly(
            "system:You are helpful.",
            "system:Summary of the earlier part of this conversation:\n\nSUMMARY of 3 messages",
            "assistant:",
            "tool:sunny",
            "assistant:Sunny.",
            "user:thanks",
            "assistant:Sunny.");
    assertThat(history().get(2).toolCalls()).hasSize(1);
  }

  @Test
  void notEnoughMessages_whenTheKeptOnesAreAlmostEverything() {
    call(
        """
        {"model": "openai/gpt-5-mini", "submit_to_model": false,
         "compaction": {"summary": {"activation": {"message_count": 2},
                                    "message_selection": {"keep_last_messages": 10}}},
         "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}
        """);
    JsonNode r = callJson("{\"messages\": [{\"role\": \"user\", \"content\": \"c\"}]}");
    assertThat(summaryReason(r)).isEqualTo(Reasons.NOT_ENOUGH_MESSAGES);
  }

  @Test
  void enabledFalse_keepsTheSettings_andEnabledTrueAloneSwitchesThemBackOn() {
    prefill(11);
    JsonNode off =
        callJson(
            "{"
                + SETTINGS.replace("\"summary\": {", "\"summary\": {\"enabled\": false,")
                + ", \"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}");
    assertThat(summaryReport(off).path("enabled").asBoolean()).isFalse();
    assertThat(summaryReason(off)).isEqualTo(Reasons.DISABLED);
    assertThat(server.summaryCalls()).isEmpty();

    JsonNode on =
        callJson(
            """
            {"compaction": {"summary": {"enabled": true}},
             "messages": [{"role": "user", "content": "b"}]}
            """);

    assertThat(summaryReport(on).path("activated").asBoolean()).isTrue();
    // keep_last_messages 2 and the summarization model were kept while switched off.
    assertThat(summaryReport(on).path("message_count_after").asInt()).isEqualTo(4);
    assertThat(server.summaryCalls().get(0).json().get("model").asText()).isEqualTo("gpt-4o-mini");
  }

  @Test
  void failsafeIsCheckedBeforeCompaction_soAThresholdAtTheFailsafeNeverTriggers() {
    prefill(9); // 10 messages
    ChatTaskException e =
        callFails(
            "{"
                + SETTINGS
                + ", \"stop_on_high_messages\": 10, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}",
            Code.FAILSAFE_MESSAGES);
    assertThat(e.getMessage()).contains("11 messages");
    assertThat(server.calls()).isEmpty();
    assertThat(chat().record().settings()).as("nothing of the call was stored").isNull();
  }

  @Test
  void failedSummarization_failsTheCall_reportsWhy_andLeavesTheChatUnchanged() {
    prefill(11);
    server.handler(
        c ->
            ModelServer.isSummary(c)
                ? Reply.raw(500, "{\"error\": {\"message\": \"summarizer down\"}}")
                : ModelServer.defaultReply(c));
    List<Message> before = history();

    ChatTaskException e =
        callFails(
            "{" + SETTINGS + ", \"messages\": [{\"role\": \"user\", \"content\": \"next\"}]}",
            Code.SUMMARIZE_FAILED);

    assertThat(e.getMessage()).contains("gpt-4o-mini").contains("unchanged");
    JsonNode error = ChatTaskJson.error(e);
    assertThat(error.at("/error/code").asText()).isEqualTo("summarize_failed");
    assertThat(summaryReason(error)).isEqualTo(Reasons.SUMMARIZE_FAILED);
    assertThat(history()).isEqualTo(before);
    assertThat(chat().record().settings()).isNull();
    assertThat(store.summaries(KEY)).isEmpty();
    assertThat(store.archivedMessages(KEY)).isEmpty();
    assertThat(server.chatCalls()).as("the chat's model is not called").isEmpty();
  }

  @Test
  void summarizationModel_defaultsToTheChatsModel_andInjectionRoleAndTemplateApply() {
    prefill(11);
    call(
        """
        {"compaction": {"summary": {"activation": {"message_count": 10},
                                    "message_selection": {"main_system_message": "include",
                                                          "keep_last_messages": 1},
                                    "injection": {"role": "user",
                                                  "template": "Earlier: {{summary}} (end)"}}},
         "messages": [{"role": "user", "content": "go"}]}
        """);

    assertThat(server.summaryCalls().get(0).json().get("model").asText()).isEqualTo("gpt-5-mini");
    assertThat(server.summaryCalls().get(0).json().toString()).contains("You are helpful.");
    assertThat(history().get(0).role()).isEqualTo(Role.USER);
    assertThat(history().get(0).content()).isEqualTo("Earlier: SUMMARY of 11 messages (end)");
    assertThat(history()).hasSize(4);
  }

  @Test
  void onDemand_summarizesWithTheSameSettings_withoutThresholdOrModelCallCount() {
    prefill(6);
    call(
        """
        {"submit_to_model": false,
         "compaction": {"summary": {"enabled": false, "activation": {"message_count": 1000},
                                    "message_selection": {"keep_last_messages": 2}}}}
        """);

    ChatTaskService.SummarizeResult r = chats.summarize(KEY);

    assertThat(r.report().activated()).isTrue();
    assertThat(r.report().messageCountBefore()).isEqualTo(7);
    assertThat(r.report().messageCountAfter()).isEqualTo(4);
    assertThat(r.record().trigger()).isEqualTo(SummaryRecord.Trigger.ON_DEMAND);
    assertThat(r.record().model()).isEqualTo("openai/gpt-5-mini");
    assertThat(history()).hasSize(4);
    assertThat(chat().record().interactions()).isZero();
    assertThat(ChatTaskJson.write(r).at("/summary/gpt_summary_uuid").asText()).isEqualTo("sum-1");

    ChatTaskService.SummarizeResult tooFew = chats.summarize(KEY);
    assertThat(tooFew.report().reason()).isEqualTo(Reasons.NOT_ENOUGH_MESSAGES);
    assertThat(history()).hasSize(4);

    call("{\"submit_to_model\": false, \"messages\": " + turns(2) + "}");
    ChatTaskService.SummarizeResult again = chats.summarize(KEY);
    assertThat(again.report().activated()).isTrue();
    assertThat(again.record().coveredMessageIds()).hasSize(3);
    assertThat(Set.copyOf(again.record().coveredMessageIds()))
        .contains(r.record().summaryMessageId());
  }

  @Test
  void onDemand_unknownChat_isNotFound() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> chats.summarize(KEY))
        .isInstanceOfSatisfying(
            ChatTaskException.class, e -> assertThat(e.code()).isEqualTo(Code.NOT_FOUND));
  }
}
