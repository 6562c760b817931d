package dev.compactor.chat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.chat.store.ArchivedMessage;
import dev.compactor.chat.testing.ChatTaskFixture;
import dev.compactor.chat.testing.ModelServer;
import dev.compactor.core.message.Role;
import dev.compactor.testkit.model.Reply;
import org.junit.jupiter.api.Test;

/** Chat task calls end to end: SQLite store, HTTP to a local model server. */
class ChatTaskServiceTest extends ChatTaskFixture {

  /**
   * Stores, without calling the model, a history ending in the assistant's call {@code callId} to
   * {@code lookup} with no result yet.
   */
  private void storeUnansweredCall(String callId) {
    call(
        """
        {"submit_to_model": false, "messages": [{"role": "user", "content": "go"},
          {"role": "assistant", "content": "",
           "tool_calls": [{"id": "%s", "type": "function",
                           "function": {"name": "lookup", "arguments": "{}"}}]}]}
        """
            .formatted(callId));
  }

  @Test
  void call_appendsMessagesAndReply_returnsUsageCostAndResponsesApi() {
    JsonNode r =
        callJson(
            """
            {"model": "openai/gpt-5-mini",
             "messages": [{"role": "system", "content": "Be brief."},
                          {"role": "user", "content": "Hi"}]}
            """);

    assertThat(r.at("/message/role").asText()).isEqualTo("assistant");
    assertThat(r.at("/message/content").asText()).isEqualTo("echo: Hi");
    assertThat(r.at("/usage/prompt_tokens").asLong()).isEqualTo(110);
    assertThat(r.at("/usage/completion_tokens").asLong()).isEqualTo(5);
    assertThat(r.at("/usage/total_tokens").asLong()).isEqualTo(115);
    // gpt-5-mini: $0.25 per million input, $2 per million output tokens.
    assertThat(r.at("/usage/cost_usd").decimalValue()).isEqualByComparingTo("0.0000375");
    JsonNode d = r.get("_gpt_chat_details");
    assertThat(d.get("api").asText()).isEqualTo("responses");
    assertThat(d.get("message_count").asInt()).isEqualTo(3);
    assertThat(d.get("interactions").asInt()).isEqualTo(1);
    assertThat(d.has("compaction")).as("no compaction settings, no report").isFalse();
    assertThat(d.at("/overflow_recovery/recovered").asBoolean()).isFalse();
    assertThat(history())
        .extracting(m -> m.role())
        .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT);
    assertThat(server.lastChatCall().path()).isEqualTo("/v1/responses");
  }

  @Test
  void call_chatCompletionsModel_reportsItsApi() {
    JsonNode r =
        callJson(
            """
            {"model": "openai-compatible/qwen3", "messages": [{"role": "user", "content": "Hi"}]}
            """);
    assertThat(r.at("/_gpt_chat_details/api").asText()).isEqualTo("chat_completions");
    assertThat(server.lastChatCall().path()).isEqualTo("/v1/chat/completions");
    assertThat(r.at("/usage/cost_usd").isNull()).as("no price for an unknown model").isTrue();
  }

  @Test
  void call_withoutModel_usesTheChatsModel_andANewChatNeedsOne() {
    callFails("{\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}", Code.INVALID_REQUEST);
    assertThat(store.find(KEY)).isEmpty();

    call(
        "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\", \"content\": \"1\"}]}");
    JsonNode r = callJson("{\"messages\": [{\"role\": \"user\", \"content\": \"2\"}]}");

    assertThat(r.at("/_gpt_chat_details/model").asText()).isEqualTo("openai/gpt-5-mini");
    assertThat(server.lastChatCall().json().get("model").asText()).isEqualTo("gpt-5-mini");
  }

  @Test
  void submitToModelFalse_storesTheMessages_withoutAModelCall() {
    JsonNode r =
        callJson(
            """
            {"submit_to_model": false, "messages": [{"role": "user", "content": "note"}]}
            """);

    assertThat(r.has("message")).isFalse();
    assertThat(r.has("usage")).isFalse();
    assertThat(r.at("/_gpt_chat_details/api").isMissingNode()).isTrue();
    assertThat(r.at("/_gpt_chat_details/interactions").asInt()).isZero();
    assertThat(server.calls()).isEmpty();
    assertThat(history()).hasSize(1);
  }

  @Test
  void messageOperationSet_replacesTheHistory_andArchivesTheOldOne() {
    call(
        "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\", \"content\": \"old\"}]}");

    call(
        """
        {"message_operation": "set",
         "messages": [{"role": "system", "content": "fresh"}, {"role": "user", "content": "new"}]}
        """);

    assertThat(history()).extracting(m -> m.content()).containsExactly("fresh", "new", "echo: new");
    assertThat(store.archivedMessages(KEY))
        .extracting(a -> a.message().content(), ArchivedMessage::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("old", ArchivedMessage.Reason.REPLACED),
            org.assertj.core.groups.Tuple.tuple("echo: old", ArchivedMessage.Reason.REPLACED));
    assertThat(chat().record().interactions()).isEqualTo(2);
  }

  @Test
  void toolResults_comeInWithoutSubmitting_andTheNextCallSubmitsThem() {
    server.handler(
        c ->
            c.lastUserText().equals("weather?") && c.texts().size() == 1
                ? Reply.toolCall("call_1", "get_weather", "{\"city\":\"Oslo\"}")
                : Reply.text("It is sunny."));
    JsonNode first =
        callJson(
            """
            {"model": "openai/gpt-5-mini",
             "tools": [{"type": "function", "function": {"name": "get_weather",
                        "parameters": {"type": "object"}}}],
             "messages": [{"role": "user", "content": "weather?"}]}
            """);
    assertThat(first.at("/message/tool_calls/0/function/name").asText()).isEqualTo("get_weather");
    assertThat(server.lastChatCall().json().at("/tools/0/name").asText()).isEqualTo("get_weather");

    call(
        """
        {"submit_to_model": false,
         "messages": [{"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 C"}]}
        """);
    assertThat(server.chatCalls()).hasSize(1);

    JsonNode closing = callJson("{}");

    assertThat(closing.at("/message/content").asText()).isEqualTo("It is sunny.");
    assertThat(server.lastChatCall().texts())
        .containsExactly("user: weather?", "function_call: call_1", "function_call_output: call_1");
    assertThat(history()).hasSize(4);
  }

  @Test
  void submittingAnUnansweredToolCall_failsClearly_andStoresNothing() {
    server.handler(c -> Reply.toolCall("call_9", "lookup", "{}"));
    call(
        "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\", \"content\": \"go\"}]}");

    ChatTaskException e =
        callFails(
            "{\"messages\": [{\"role\": \"user\", \"content\": \"and?\"}]}", Code.INVALID_REQUEST);

    assertThat(e.getMessage()).contains("call_9");
    assertThat(history()).hasSize(2);
  }

  @Test
  void submittingAHistoryThatEndsInAnAssistantToolCall_isRefusedBeforeTheModelIsCalled() {
    storeUnansweredCall("call_7");

    ChatTaskException e = callFails("{\"model\": \"openai/gpt-5-mini\"}", Code.INVALID_REQUEST);

    assertThat(e.getMessage()).contains("last message", "call_7", "without results");
    assertThat(server.calls()).isEmpty();
    assertThat(history()).hasSize(2);
    assertThat(chat().record().interactions()).isZero();
  }

  @Test
  void anAssistantMessageAfterAnUnansweredCall_isRefused_evenWithoutSubmitting() {
    storeUnansweredCall("call_8");

    ChatTaskException e =
        callFails(
            """
            {"submit_to_model": false,
             "messages": [{"role": "assistant", "content": "never mind"}]}
            """,
            Code.INVALID_REQUEST);

    assertThat(e.getMessage()).contains("call_8", "unanswered");
    assertThat(history()).hasSize(2);

    call(
        """
        {"submit_to_model": false,
         "messages": [{"role": "tool", "tool_call_id": "call_8", "content": "found"},
                      {"role": "assistant", "content": "Found it."}]}
        """);
    assertThat(history()).hasSize(4);
  }

  @Test
  void duplicateMessageId_isRejected() {
    call(
        """
        {"submit_to_model": false, "messages": [{"id": "m1", "role": "user", "content": "a"}]}
        """);
    ChatTaskException e =
        callFails(
            """
            {"submit_to_model": false, "messages": [{"id": "m1", "role": "user", "content": "b"}]}
            """,
            Code.INVALID_REQUEST);
    assertThat(e.getMessage()).contains("m1");
  }

  @Test
  void invalidSettings_failTheCall_andNothingOfTheCallIsStored() {
    call(
        """
        {"model": "openai/gpt-5-mini",
         "compaction": {"summary": {"activation": {"message_count": 30}}},
         "messages": [{"role": "user", "content": "a"}]}
        """);
    String before = chat().record().settings();

    ChatTaskException e =
        callFails(
            """
            {"compaction": {"summary": {"activation": {"message_count": 40},
                                        "summarization": {"model": "openai/no-such-model"}}},
             "messages": [{"role": "user", "content": "b"}]}
            """,
            Code.INVALID_SETTINGS);

    assertThat(e.getMessage()).contains("compaction.summary.summarization.model", "no-such-model");
    assertThat(chat().record().settings()).isEqualTo(before);
    assertThat(history()).hasSize(2);
    assertThat(server.chatCalls()).hasSize(1);
  }

  // ------------------------------------------------------------------ failsafes

  @Test
  void stopOnHighMessages_defaultsTo200_falseDisables_aNumberChangesIt_andSetStartsOver() {
    call("{\"submit_to_model\": false, \"messages\": " + turns(199) + "}");
    ChatTaskException e =
        callFails(
            "{\"submit_to_model\": false, \"messages\": " + turns(2) + "}", Code.FAILSAFE_MESSAGES);
    assertThat(e.getMessage()).contains("201").contains("200");
    assertThat(history()).hasSize(199);

    call(
        "{\"submit_to_model\": false, \"stop_on_high_messages\": false, \"messages\": "
            + turns(2)
            + "}");
    assertThat(history()).hasSize(201);
    callFails(
        "{\"submit_to_model\": false, \"stop_on_high_messages\": 300, \"messages\": "
            + turns(100)
            + "}",
        Code.FAILSAFE_MESSAGES);

    call(
        "{\"submit_to_model\": false, \"message_operation\": \"set\", \"messages\": "
            + turns(3)
            + "}");
    assertThat(history()).hasSize(3);
  }

  @Test
  void stopOnHighInteractions_countsModelCalls_isNeverReset_andChangesNothingWhenTripped() {
    String req =
        "{\"model\": \"openai/gpt-5-mini\", \"stop_on_high_interactions\": 2,"
            + " \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}";
    call(req);
    call(req);
    ChatTaskException e = callFails(req, Code.FAILSAFE_INTERACTIONS);
    assertThat(e.getMessage()).contains("2 model calls");
    assertThat(history()).hasSize(4);
    assertThat(server.chatCalls()).hasSize(2);

    callFails(
        "{\"message_operation\": \"set\", \"stop_on_high_interactions\": 2,"
            + " \"messages\": [{\"role\": \"user\", \"content\": \"again\"}]}",
        Code.FAILSAFE_INTERACTIONS);
    call(
        "{\"submit_to_model\": false, \"stop_on_high_interactions\": 2, \"messages\": [{\"role\": \"user\", \"content\": \"ok\"}]}");
    assertThat(history()).hasSize(5);
    assertThat(chat().record().interactions()).isEqualTo(2);
  }

  // ------------------------------------------------------------------ model failures

  @Test
  void contextOverflow_failsTheCall_andStoresNothing() {
    call(
        "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}");
    server.handler(
        c ->
            Reply.raw(
                400,
                """
                {"error": {"message": "Your input exceeds the context window of this model.",
                  "type": "invalid_request_error", "code": "context_length_exceeded",
                  "param": "input"}}
                """));

    ChatTaskException e =
        callFails(
            "{\"messages\": [{\"role\": \"user\", \"content\": \"b\"}]}", Code.CONTEXT_OVERFLOW);

    assertThat(e.getMessage()).contains("context window").contains("nothing was stored");
    assertThat(history()).hasSize(2);
    assertThat(chat().record().interactions()).isEqualTo(1);
  }

  @Test
  void contextOverflow_isRecoveredOnASmallerPreparedInput_andTheChatKeepsEveryMessage() {
    for (int i = 0; i < 6; i++) {
      call(
          "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\","
              + " \"content\": \"question "
              + i
              + " "
              + "x".repeat(2000)
              + "\"}]}");
    }
    int storedBefore = history().size();
    int[] seen = {0};
    java.util.List<Integer> sizes = new java.util.ArrayList<>();
    server.handler(
        c -> {
          sizes.add(c.json().toString().length());
          if (seen[0]++ == 0) {
            return Reply.raw(
                400,
                """
                {"error": {"message": "Your input exceeds the context window of this model.",
                  "type": "invalid_request_error", "code": "context_length_exceeded",
                  "param": "input"}}
                """);
          }
          return ModelServer.defaultReply(c);
        });

    JsonNode r = callJson("{\"messages\": [{\"role\": \"user\", \"content\": \"last\"}]}");

    assertThat(r.at("/message/content").asText()).isEqualTo("echo: last");
    assertThat(r.at("/_gpt_chat_details/overflow_recovery/recovered").asBoolean()).isTrue();
    assertThat(r.at("/_gpt_chat_details/overflow_recovery/retries").asInt()).isEqualTo(1);
    assertThat(sizes).hasSize(2);
    assertThat(sizes.get(1)).isLessThan(sizes.get(0));
    // Only what was sent shrank: the stored chat has every message plus the new two.
    assertThat(history()).hasSize(storedBefore + 2);
  }

  @Test
  void modelError_failsTheCall_andStoresNothing() {
    server.handler(
        c ->
            Reply.raw(
                401, "{\"error\": {\"message\": \"bad key\", \"type\": \"invalid_api_key\"}}"));

    callFails(
        "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}",
        Code.MODEL_ERROR);

    assertThat(store.find(KEY)).isEmpty();
  }

  @Test
  void aModelCallerSeam_reportsOverflowRecovery() {
    ChatTaskService recovering =
        ChatTaskService.builder(store)
            .models(server.models())
            .modelCaller(
                (model, request) ->
                    new ModelCaller.ModelCallResult(
                        model.chat(
                            request.withMessages(
                                request
                                    .messages()
                                    .subList(
                                        request.messages().size() - 1, request.messages().size()))),
                        2))
            .build();

    ChatTaskResult r =
        recovering.call(
            KEY,
            dev.compactor.chat.json.ChatTaskJson.parseRequest(
                "{\"model\": \"openai/gpt-5-mini\", \"messages\": " + turns(5) + "}"));

    JsonNode d = dev.compactor.chat.json.ChatTaskJson.write(r).get("_gpt_chat_details");
    assertThat(d.at("/overflow_recovery/recovered").asBoolean()).isTrue();
    assertThat(d.at("/overflow_recovery/retries").asInt()).isEqualTo(2);
    assertThat(history()).as("the stored chat keeps every message").hasSize(6);
  }

  @Test
  void costIsNullForModelsWithoutAPrice() {
    ChatTaskResult r =
        call(
            "{\"model\": \"openai-compatible/mystery\", \"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}");
    assertThat(r.usage().costUsd()).isNull();
    assertThat(r.usage().usage().input()).isEqualTo(110);
  }
}
