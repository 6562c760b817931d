package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResponsesRequestsTest {
  static final String IMAGE = "data:image/png;base64," + "iVBORw0KGgo".repeat(300);

  static List<JsonNode> items(String... json) {
    List<JsonNode> out = new ArrayList<>();
    for (String j : json) {
      out.add(ResponsesProxyContract.Json.parse(j));
    }
    return out;
  }

  static final String USER = "{\"role\":\"user\",\"content\":\"go\"}";
  static final String COMPUTER =
      "{\"type\":\"computer_call\",\"id\":\"cu_1\",\"call_id\":\"cc_1\","
          + "\"action\":{\"type\":\"click\",\"x\":1,\"y\":2},\"pending_safety_checks\":[]}";
  static final String SHOT =
      "{\"type\":\"computer_call_output\",\"call_id\":\"cc_1\",\"output\":"
          + "{\"type\":\"computer_screenshot\",\"image_url\":\""
          + IMAGE
          + "\"},\"acknowledged_safety_checks\":[]}";
  static final String FILE_SHOT =
      "{\"type\":\"computer_call_output\",\"call_id\":\"cc_2\",\"output\":"
          + "{\"type\":\"computer_screenshot\",\"file_id\":\"file-9\"}}";
  static final String SHELL =
      "{\"type\":\"local_shell_call\",\"id\":\"lsh_1\",\"call_id\":\"ls_1\","
          + "\"action\":{\"type\":\"exec\",\"command\":[\"ls\"]},\"status\":\"completed\"}";
  static final String SHELL_OUT =
      "{\"type\":\"local_shell_call_output\",\"id\":\"lsh_1\",\"output\":\"a\\nb\\n\"}";

  /** {@code m} as a masking writes it: a new id, a placeholder. */
  static Message masked(Message m, String placeholder) {
    return m.toBuilder().id(m.id().value() + "~masked").content(placeholder).build();
  }

  @Test
  void aMaskedResultKeepsItsItemType() throws Exception {
    String custom =
        "{\"type\":\"custom_tool_call\",\"call_id\":\"ct_1\",\"name\":\"apply_patch\","
            + "\"input\":\"*** Begin Patch\"}";
    String customOut =
        "{\"type\":\"custom_tool_call_output\",\"call_id\":\"ct_1\",\"output\":\"Done.\"}";
    List<JsonNode> items = items(USER, custom, customOut, USER);
    List<Message> view = new ArrayList<>(ResponsesRequests.decode(items));
    view.set(2, masked(view.get(2), "[elided]"));
    assertThat(ResponsesRequests.encode(view, items).get(2).toString())
        .isEqualTo(
            "{\"type\":\"custom_tool_call_output\",\"call_id\":\"ct_1\",\"output\":\"[elided]\"}");
  }

  @Test
  void aScreenshotIsReadAsAShortTextAndAlwaysWrittenBackAsTheClientsItem() throws Exception {
    List<JsonNode> items =
        items(USER, COMPUTER, SHOT, COMPUTER.replace("cc_1", "cc_2"), FILE_SHOT, USER);
    List<Message> decoded = ResponsesRequests.decode(items);
    Message shot = decoded.get(2);
    assertThat(shot.role()).isEqualTo(Role.TOOL);
    assertThat(shot.toolCallId()).isEqualTo("cc_1");
    assertThat(shot.content()).isEqualTo("[computer_screenshot]"); // not the image's base64
    assertThat(decoded.get(4).content()).isEqualTo("[computer_screenshot file-9]");
    // a masking that replaced the outputs: the screenshots go out as the client sent them
    List<Message> view = new ArrayList<>(decoded);
    view.set(2, shot.withContent("[output elided]"));
    // (a masking gives the message an id of its own)
    view.set(4, masked(decoded.get(4), "[output elided]"));
    List<JsonNode> sent = ResponsesRequests.encode(view, items);
    assertThat(sent).hasSize(items.size());
    assertThat(sent.get(2)).isEqualTo(items.get(2));
    assertThat(sent.get(4)).isEqualTo(items.get(4));
  }

  @Test
  void aLocalShellOutputAnswersItsCallByIdAndIsMaskedAsText() throws Exception {
    List<JsonNode> items = items(USER, SHELL, SHELL_OUT, USER);
    List<Message> decoded = ResponsesRequests.decode(items);
    assertThat(decoded.get(1).toolCalls().get(0).id()).isEqualTo("ls_1");
    assertThat(decoded.get(2).toolCallId()).isEqualTo("ls_1");
    assertThat(decoded.get(2).content()).isEqualTo("a\nb\n");
    List<Message> view = new ArrayList<>(decoded);
    view.set(2, masked(decoded.get(2), "[masked]"));
    JsonNode out = ResponsesRequests.encode(view, items).get(2);
    assertThat(out.toString())
        .isEqualTo(
            "{\"type\":\"local_shell_call_output\",\"id\":\"lsh_1\",\"output\":\"[masked]\"}");
    // by the call's call_id as well
    assertThat(ResponsesRequests.decode(items(USER, SHELL, SHELL_OUT.replace("lsh_1", "ls_1"))))
        .element(2)
        .satisfies(m -> assertThat(m.toolCallId()).isEqualTo("ls_1"));
    // one that answers no call before it is not read
    assertThatThrownBy(() -> ResponsesRequests.decode(items(USER, SHELL_OUT)))
        .isInstanceOf(WireApi.Unreadable.class)
        .hasMessage("input item 1 (local_shell_call_output lsh_1) answers no call before it");
    assertThatThrownBy(
            () ->
                ResponsesRequests.decode(
                    items(USER, "{\"type\":\"local_shell_call_output\",\"output\":\"x\"}")))
        .isInstanceOf(WireApi.Unreadable.class)
        .hasMessage("input item 1 (local_shell_call_output) has no call_id");
  }
}
