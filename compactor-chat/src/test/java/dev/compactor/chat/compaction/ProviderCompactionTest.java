package dev.compactor.chat.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.internal.Reasons;
import dev.compactor.chat.testing.ChatTaskFixture;
import dev.compactor.chat.testing.ModelServer;
import org.junit.jupiter.api.Test;

/** Provider compaction: OpenAI Responses models only, threshold passed on, history kept. */
class ProviderCompactionTest extends ChatTaskFixture {

  @Test
  void responsesModel_getsTheThresholdAsContextManagement_andTheReportSaysWhetherItCompacted() {
    JsonNode first =
        callJson(
            """
            {"model": "openai/gpt-5-mini",
             "compaction": {"provider": {"compact_threshold": "200_000"}},
             "messages": [{"role": "user", "content": "one"}]}
            """);

    JsonNode cm = server.lastChatCall().json().get("context_management");
    assertThat(cm.toString()).isEqualTo("[{\"type\":\"compaction\",\"compact_threshold\":200000}]");
    JsonNode provider = first.at("/_gpt_chat_details/compaction/provider");
    assertThat(provider.fieldNames())
        .toIterable()
        .containsExactly("enabled", "compacted", "reason");
    assertThat(provider.get("enabled").asBoolean()).isTrue();
    assertThat(provider.get("compacted").asBoolean()).isFalse();
    assertThat(provider.get("reason").asText()).isEqualTo("provider did not compact");
    assertThat(first.at("/_gpt_chat_details/compaction").has("summary")).isFalse();

    server.handler(c -> ModelServer.defaultReply(c).compacted());
    JsonNode second = callJson("{\"messages\": [{\"role\": \"user\", \"content\": \"two\"}]}");

    JsonNode compacted = second.at("/_gpt_chat_details/compaction/provider");
    assertThat(compacted.fieldNames()).toIterable().containsExactly("enabled", "compacted");
    assertThat(compacted.get("compacted").asBoolean()).isTrue();
    // The stored history is not shortened.
    assertThat(history()).hasSize(4);
    assertThat(second.at("/_gpt_chat_details/message_count").asInt()).isEqualTo(4);

    // The compaction item goes back to the provider with the reply that carried it.
    server.handler(ModelServer::defaultReply);
    call("{\"messages\": [{\"role\": \"user\", \"content\": \"three\"}]}");
    assertThat(server.lastChatCall().json().get("input").toString())
        .contains("\"type\":\"compaction\"")
        .contains("gAAAA-compacted-");
  }

  @Test
  void defaultThreshold_isEightyPercentOfTheModelsWindow() {
    call(
        """
        {"model": "openai/gpt-5-mini", "compaction": {"provider": {"enabled": true}},
         "messages": [{"role": "user", "content": "one"}]}
        """);
    // gpt-5-mini has a 400,000-token window in the model catalog.
    assertThat(server.lastChatCall().json().at("/context_management/0/compact_threshold").asInt())
        .isEqualTo(320_000);
  }

  @Test
  void otherApis_ignoreTheSetting_andTheReportSaysWhy() {
    JsonNode r =
        callJson(
            """
            {"model": "openai-compatible/qwen3",
             "compaction": {"provider": {"compact_threshold": 50000}},
             "messages": [{"role": "user", "content": "one"}]}
            """);

    assertThat(r.at("/_gpt_chat_details/api").asText()).isEqualTo("chat_completions");
    assertThat(r.at("/_gpt_chat_details/compaction/provider/enabled").asBoolean()).isTrue();
    assertThat(r.at("/_gpt_chat_details/compaction/provider/compacted").asBoolean()).isFalse();
    assertThat(r.at("/_gpt_chat_details/compaction/provider/reason").asText())
        .isEqualTo(Reasons.NOT_RESPONSES_API);
    assertThat(server.lastChatCall().json().has("context_management")).isFalse();
  }

  @Test
  void disabled_orNotSubmitted_sendsNoThreshold_andSaysWhy() {
    JsonNode notSubmitted =
        callJson(
            """
            {"submit_to_model": false, "compaction": {"provider": {"compact_threshold": 5000}},
             "messages": [{"role": "user", "content": "one"}]}
            """);
    assertThat(notSubmitted.at("/_gpt_chat_details/compaction/provider/reason").asText())
        .isEqualTo(Reasons.NOT_SUBMITTED);

    JsonNode disabled =
        callJson(
            """
            {"model": "openai/gpt-5-mini", "compaction": {"provider": {"enabled": false}}}
            """);
    assertThat(disabled.at("/_gpt_chat_details/compaction/provider/enabled").asBoolean()).isFalse();
    assertThat(disabled.at("/_gpt_chat_details/compaction/provider/reason").asText())
        .isEqualTo(Reasons.DISABLED);
    assertThat(server.lastChatCall().json().has("context_management")).isFalse();

    callJson("{\"compaction\": {\"provider\": {\"enabled\": true}}}");
    assertThat(server.lastChatCall().json().at("/context_management/0/compact_threshold").asInt())
        .as("enabled: true alone brings the stored threshold back")
        .isEqualTo(5000);
  }

  @Test
  void switchingFromProviderToSummary_needsTheProviderSwitchedOff_inTheSameCall() {
    call(
        """
        {"model": "openai/gpt-5-mini", "submit_to_model": false,
         "compaction": {"provider": {"compact_threshold": 100000}}}
        """);
    callFails(
        "{\"submit_to_model\": false, \"compaction\": {\"summary\": {\"enabled\": true}}}",
        dev.compactor.chat.base.ChatTaskException.Code.INVALID_SETTINGS);

    JsonNode r =
        callJson(
            """
            {"submit_to_model": false,
             "compaction": {"summary": {"enabled": true}, "provider": {"enabled": false}}}
            """);

    assertThat(r.at("/_gpt_chat_details/compaction/summary/reason").asText())
        .isEqualTo(Reasons.NOT_SUBMITTED);
    assertThat(r.at("/_gpt_chat_details/compaction/provider/enabled").asBoolean()).isFalse();
  }

  @Test
  void removingAllSettings_removesTheReport() {
    call(
        """
        {"model": "openai/gpt-5-mini", "compaction": {"provider": {"compact_threshold": 100000}},
         "messages": [{"role": "user", "content": "one"}]}
        """);
    JsonNode r =
        callJson(
            "{\"compaction\": null, \"messages\": [{\"role\": \"user\", \"content\": \"2\"}]}");
    assertThat(r.at("/_gpt_chat_details").has("compaction")).isFalse();
    assertThat(chat().record().settings()).isNull();
  }
}
