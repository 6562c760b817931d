package dev.compactor.chat.json;

import static dev.compactor.chat.testing.ChatTaskAssertions.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.ChatTaskRequest;
import dev.compactor.chat.MessageOperation;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.CompactionDetails;
import dev.compactor.chat.base.CompactionDetails.ProviderReport;
import dev.compactor.chat.base.CompactionDetails.SummaryReport;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import org.junit.jupiter.api.Test;

class ChatTaskJsonTest {
  private static void assertInvalid(String json, String... parts) {
    assertFailsWith(
        () -> ChatTaskJson.parseRequest(json), ChatTaskException.Code.INVALID_REQUEST, parts);
  }

  @Test
  void emptyRequest_hasTheDefaults() {
    ChatTaskRequest r = ChatTaskJson.parseRequest("{}");
    assertThat(r.messages()).isEmpty();
    assertThat(r.messageOperation()).isEqualTo(MessageOperation.APPEND);
    assertThat(r.submitToModel()).isTrue();
    assertThat(r.model()).isNull();
    assertThat(r.compaction()).isNull();
    assertThat(r.stopOnHighMessages()).isEqualTo(200);
    assertThat(r.stopOnHighInteractions()).isEqualTo(1000);
  }

  @Test
  void fullRequest_isRead() {
    ChatTaskRequest r =
        ChatTaskJson.parseRequest(
            """
            {"messages": [
               {"role": "system", "content": "sys"},
               {"id": "u1", "role": "user", "content": "hi"},
               {"role": "assistant", "content": null,
                "tool_calls": [{"id": "c1", "type": "function",
                                "function": {"name": "f", "arguments": {"a": 1}}},
                               {"id": "c2", "name": "g", "arguments": "{}"}]},
               {"role": "tool", "tool_call_id": "c1", "content": "r"}],
             "message_operation": "set", "submit_to_model": false, "model": " openai/gpt-5 ",
             "compaction": {"provider": {"compact_threshold": 5000}},
             "stop_on_high_messages": false, "stop_on_high_interactions": "1_500",
             "tools": [{"name": "f", "description": "F", "parameters": {"type": "object"}}],
             "max_output_tokens": 100, "temperature": 0.5}
            """);
    assertThat(r.messages())
        .extracting(Message::role)
        .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL);
    assertThat(r.messages().get(1).id().value()).isEqualTo("u1");
    assertThat(r.messages().get(2).content()).isEmpty();
    assertThat(r.messages().get(2).toolCalls().get(0).arguments()).isEqualTo("{\"a\":1}");
    assertThat(r.messages().get(2).toolCalls().get(1).name()).isEqualTo("g");
    assertThat(r.messages().get(3).toolCallId()).isEqualTo("c1");
    assertThat(r.messageOperation()).isEqualTo(MessageOperation.SET);
    assertThat(r.submitToModel()).isFalse();
    assertThat(r.model()).isEqualTo("openai/gpt-5");
    assertThat(r.compaction().toString()).contains("5000");
    assertThat(r.stopOnHighMessages()).isNull();
    assertThat(r.stopOnHighInteractions()).isEqualTo(1500);
    assertThat(r.tools().get(0).jsonSchema()).isEqualTo("{\"type\":\"object\"}");
    assertThat(r.maxOutputTokens()).isEqualTo(100);
    assertThat(r.temperature()).isEqualTo(0.5);
  }

  @Test
  void nullCompaction_isKeptApartFromAbsent() {
    assertThat(ChatTaskJson.parseRequest("{\"compaction\": null}").compaction().isNull()).isTrue();
    assertThat(ChatTaskJson.parseRequest("{}").compaction()).isNull();
  }

  @Test
  void badRequests_areRejected_namingTheField() {
    assertInvalid("not json", "not valid JSON");
    assertInvalid("[]", "JSON object");
    assertInvalid("{\"mesages\": []}", "unknown request field \"mesages\"");
    assertInvalid("{\"messages\": {}}", "messages must be an array");
    assertInvalid("{\"messages\": [{\"content\": \"x\"}]}", "messages[0].role is required");
    assertInvalid("{\"messages\": [{\"role\": \"robot\"}]}", "messages[0].role", "robot");
    assertInvalid("{\"messages\": [{\"role\": \"user\", \"content\": 5}]}", "messages[0].content");
    assertInvalid(
        "{\"messages\": [{\"role\": \"user\", \"content\": \"x\", \"name\": \"bob\"}]}",
        "unknown field \"name\"");
    assertInvalid(
        "{\"messages\": [{\"role\": \"tool\", \"content\": \"x\"}]}", "tool_call_id is required");
    assertInvalid(
        "{\"messages\": [{\"role\": \"user\", \"tool_calls\": []}]}", "only assistant messages");
    assertInvalid("{\"message_operation\": \"replace\"}", "\"append\" or \"set\"");
    assertInvalid("{\"submit_to_model\": \"yes\"}", "submit_to_model");
    assertInvalid("{\"model\": \"\"}", "model");
    assertInvalid("{\"stop_on_high_messages\": true}", "stop_on_high_messages");
    assertInvalid("{\"stop_on_high_messages\": 0}", "stop_on_high_messages");
    assertInvalid("{\"stop_on_high_interactions\": false}", "stop_on_high_interactions");
    assertInvalid("{\"temperature\": 3}", "temperature");
    assertInvalid("{\"tools\": {}}", "tools must be an array");
    assertInvalid("{\"tools\": [{\"function\": {}}]}", "tools[0].name is required");
    assertInvalid(
        "{\"tools\": [{\"name\": \"f\", \"parameters\": []}]}",
        "tools[0].parameters must be a JSON schema object");
    assertInvalid("{\"max_output_tokens\": 1.5}", "max_output_tokens");
    assertInvalid("{\"tools\": [{\"description\": \"x\"}]}", "tools[0].name");
  }

  @Test
  void report_writesOnlyTheFieldsTheSpecificationShows() {
    var activated =
        ChatTaskJson.report(
            new CompactionDetails(
                SummaryReport.activated(64, 4, "uuid-1"),
                ProviderReport.notCompacted(true, "provider did not compact")));
    assertThat(activated.toString())
        .isEqualTo(
            "{\"summary\":{\"enabled\":true,\"activated\":true,\"message_count_before\":64,"
                + "\"message_count_after\":4,\"gpt_summary_uuid\":\"uuid-1\"},"
                + "\"provider\":{\"enabled\":true,\"compacted\":false,"
                + "\"reason\":\"provider did not compact\"}}");
    var summaryOnly =
        ChatTaskJson.report(
            new CompactionDetails(SummaryReport.notActivated(false, "disabled"), null));
    assertThat(summaryOnly.toString())
        .isEqualTo("{\"summary\":{\"enabled\":false,\"activated\":false,\"reason\":\"disabled\"}}");
  }

  @Test
  void error_carriesCodeMessageAndReport() {
    var e = new ChatTaskException(ChatTaskException.Code.FAILSAFE_MESSAGES, "too many", null, null);
    assertThat(ChatTaskJson.error(e).toString())
        .isEqualTo("{\"error\":{\"code\":\"failsafe_messages\",\"message\":\"too many\"}}");
  }
}
