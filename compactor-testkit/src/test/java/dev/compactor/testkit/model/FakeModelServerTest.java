package dev.compactor.testkit.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The server's wire formats and its provider-style validation, seen from a plain HTTP client. */
class FakeModelServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final FakeModelServer server = FakeModelServer.start();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> post(String path, String body)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> r) throws IOException {
    return JSON.readTree(r.body());
  }

  // ------------------------------------------------------------------ answers

  @Test
  void chatCompletions_textAnswer_isTheDocumentedBody() throws Exception {
    server.enqueue(Reply.text("hi").usage(10, 2).cache(4, 0));

    HttpResponse<String> r =
        post(
            "/chat/completions",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode j = json(r);
    assertThat(j.path("object").asText()).isEqualTo("chat.completion");
    assertThat(j.at("/choices/0/message/content").asText()).isEqualTo("hi");
    assertThat(j.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(j.at("/usage/prompt_tokens").asLong()).isEqualTo(14);
    assertThat(j.at("/usage/prompt_tokens_details/cached_tokens").asLong()).isEqualTo(4);
    assertThat(server.lastRequest().lastUserText()).isEqualTo("x");
  }

  @Test
  void chatCompletions_stream_endsWithAUsageChunkWithoutChoices_thenDone() throws Exception {
    server.enqueue(Reply.text("hello world").usage(10, 2));

    HttpResponse<String> r =
        post(
            "/chat/completions",
            "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

    assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
    String[] events = r.body().strip().split("\n\n");
    assertThat(events[events.length - 1]).isEqualTo("data: [DONE]");
    JsonNode usage = JSON.readTree(events[events.length - 2].substring("data: ".length()));
    assertThat(usage.path("choices")).isEmpty();
    assertThat(usage.at("/usage/completion_tokens").asLong()).isEqualTo(2);
  }

  @Test
  void responses_stream_numbersItsEvents_andEndsWithResponseCompleted() throws Exception {
    server.enqueue(Reply.text("hello world").compacted());

    HttpResponse<String> r =
        post("/responses", "{\"model\":\"m\",\"stream\":true,\"input\":\"hi\"}");

    String[] events = r.body().strip().split("\n\n");
    for (int i = 0; i < events.length; i++) {
      JsonNode data = JSON.readTree(events[i].substring(events[i].indexOf("data: ") + 6));
      assertThat(data.path("sequence_number").asInt()).isEqualTo(i);
    }
    assertThat(r.body()).contains("event: response.compaction.compacting");
    assertThat(events[events.length - 1]).startsWith("event: response.completed");
  }

  @Test
  void anthropic_stream_runsFromMessageStartToMessageStop() throws Exception {
    server.enqueue(Reply.toolCall("toolu_1", "read", "{\"p\":1}").usage(7, 3));

    HttpResponse<String> r =
        post(
            "/messages",
            "{\"model\":\"m\",\"max_tokens\":10,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

    assertThat(r.body())
        .startsWith("event: message_start")
        .contains("\"type\":\"input_json_delta\"", "\"stop_reason\":\"tool_use\"")
        .endsWith("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  }

  @Test
  void countTokens_answersTheEstimate() throws Exception {
    HttpResponse<String> r =
        post(
            "/messages/count_tokens",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"abcdefgh\"}]}");

    assertThat(json(r).path("input_tokens").asLong()).isEqualTo(3); // "abcdefgh\n" / 4, rounded up
  }

  @Test
  void withoutAScriptedReply_theServerSays500() throws Exception {
    HttpResponse<String> r =
        post(
            "/chat/completions",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.body()).contains("no reply scripted");
  }

  @Test
  void handler_answersWhenTheQueueIsEmpty() throws Exception {
    server.enqueue(Reply.text("first")).replyWith(req -> Reply.text("echo: " + req.lastUserText()));
    String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";

    assertThat(json(post("/chat/completions", body)).at("/choices/0/message/content").asText())
        .isEqualTo("first");
    assertThat(json(post("/chat/completions", body)).at("/choices/0/message/content").asText())
        .isEqualTo("echo: x");
  }

  // ------------------------------------------------------------------ errors

  @Test
  void contextLengthExceeded_isEachProvidersRealBody() throws Exception {
    server.contextWindow(5);
    String text = "x".repeat(100);

    HttpResponse<String> chat =
        post(
            "/chat/completions",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}");
    HttpResponse<String> responses =
        post("/responses", "{\"model\":\"m\",\"input\":\"" + text + "\"}");
    HttpResponse<String> anthropic =
        post(
            "/messages",
            "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\""
                + text
                + "\"}]}");

    assertThat(chat.statusCode()).isEqualTo(400);
    assertThat(json(chat).at("/error/code").asText()).isEqualTo("context_length_exceeded");
    assertThat(json(chat).at("/error/message").asText())
        .startsWith(
            "This model's maximum context length is 5 tokens. However, your messages resulted in 26 tokens.");
    assertThat(json(responses).at("/error/param").asText()).isEqualTo("input");
    assertThat(json(responses).at("/error/code").asText()).isEqualTo("context_length_exceeded");
    assertThat(anthropic.statusCode()).isEqualTo(400);
    assertThat(json(anthropic).at("/error/message").asText())
        .isEqualTo("prompt is too long: 26 tokens > 5 maximum");
    assertThat(server.rejections()).hasSize(3);
  }

  @Test
  void inStreamError_arrivesAfterHttp200() throws Exception {
    server.enqueue(Reply.contextLengthExceeded().inStream());

    HttpResponse<String> r =
        post("/responses", "{\"model\":\"m\",\"stream\":true,\"input\":\"hi\"}");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("event: error").contains("\"code\":\"context_length_exceeded\"");
  }

  @Test
  void delay_holdsTheAnswer() throws Exception {
    server.enqueue(Reply.text("late").delay(Duration.ofMillis(300)));
    String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .timeout(Duration.ofMillis(50))
            .build();

    assertThat(http.sendAsync(req, HttpResponse.BodyHandlers.ofString()).handle((r, e) -> e).get())
        .isNotNull(); // timed out
  }

  // ------------------------------------------------------------------ validation

  /** A Chat Completions request body for model {@code m} with these messages (JSON objects). */
  private static String chatBody(String... messages) {
    return "{\"model\":\"m\",\"messages\":[" + String.join(",", messages) + "]}";
  }

  /** A Responses request body for model {@code m} with these input items (JSON objects). */
  private static String responsesBody(String... items) {
    return "{\"model\":\"m\",\"input\":[" + String.join(",", items) + "]}";
  }

  /** A Messages request body for model {@code m}, {@code max_tokens} 10, with these messages. */
  private static String messagesBody(String... messages) {
    return "{\"model\":\"m\",\"max_tokens\":10,\"messages\":[" + String.join(",", messages) + "]}";
  }

  /** {@link #rejection} of a Chat Completions request with these messages. */
  private String chatRejection(String... messages) throws Exception {
    return rejection("/chat/completions", chatBody(messages));
  }

  /** {@link #rejection} of a Responses request with these input items. */
  private String responsesRejection(String... items) throws Exception {
    return rejection("/responses", responsesBody(items));
  }

  /** {@link #rejection} of a Messages request with these messages. */
  private String messagesRejection(String... messages) throws Exception {
    return rejection("/messages", messagesBody(messages));
  }

  /**
   * The provider-style error message the server answered {@code body} with (a 400, also recorded as
   * the request's rejection), or null when it accepted it.
   */
  private String rejection(String path, String body) throws Exception {
    server.replyWith(r -> Reply.text("accepted"));
    HttpResponse<String> r = post(path, body);
    if (r.statusCode() == 200) {
      return null;
    }
    assertThat(r.statusCode()).isEqualTo(400);
    JsonNode j = json(r);
    assertThat(server.lastRequest().rejection()).isEqualTo(j.at("/error/message").asText());
    return j.at("/error/message").asText();
  }

  @Test
  void chatCompletions_toolPairing() throws Exception {
    String call =
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}";
    String result = "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"ok\"}";
    String user = "{\"role\":\"user\",\"content\":\"x\"}";

    assertThat(chatRejection(user, call, result, user)).isNull();
    assertThat(chatRejection(user, result))
        .contains(
            "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'");
    assertThat(chatRejection(user, call, user))
        .contains("The following tool_call_ids did not have response messages: c1");
    assertThat(chatRejection(user, call)).contains("did not have response messages: c1");
    assertThat(chatRejection(user, call, result, result))
        .contains("must be a response to a preceeding message");
    assertThat(
            rejection(
                "/chat/completions",
                "{\"model\":\"m\",\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}"))
        .startsWith("Invalid value: 'robot'.");
    assertThat(rejection("/chat/completions", "{\"model\":\"m\",\"messages\":[]}"))
        .contains("too short");
    assertThat(rejection("/chat/completions", "{\"messages\":[" + user + "]}")).contains("model");
  }

  @Test
  void responses_toolPairing() throws Exception {
    String call =
        "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":\"{}\"}";
    String output = "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"ok\"}";
    String user = "{\"role\":\"user\",\"content\":\"x\"}";

    assertThat(responsesRejection(user, call, output, user)).isNull();
    assertThat(responsesRejection(user, output))
        .isEqualTo("No tool call found for function call output with call_id c1.");
    assertThat(responsesRejection(user, call, user))
        .isEqualTo("No tool output found for function call c1.");
    assertThat(responsesRejection(user, call))
        .isEqualTo("No tool output found for function call c1.");
  }

  @Test
  void responses_computerAndLocalShellCallsArePairedAndTheirOutputsShaped() throws Exception {
    String go = "{\"role\":\"user\",\"content\":\"go\"}";
    String computer =
        "{\"type\":\"computer_call\",\"id\":\"cu_1\",\"call_id\":\"cc_1\","
            + "\"action\":{\"type\":\"click\",\"x\":1,\"y\":2},\"pending_safety_checks\":[]}";
    String shot =
        "{\"type\":\"computer_call_output\",\"call_id\":\"cc_1\",\"output\":"
            + "{\"type\":\"computer_screenshot\",\"image_url\":\"data:image/png;base64,AAAA\"}}";
    String file =
        "{\"type\":\"computer_call_output\",\"call_id\":\"cc_1\",\"output\":"
            + "{\"type\":\"computer_screenshot\",\"file_id\":\"file-1\"}}";
    String shell =
        "{\"type\":\"local_shell_call\",\"id\":\"lsh_1\",\"call_id\":\"ls_1\","
            + "\"action\":{\"type\":\"exec\",\"command\":[\"ls\"],\"env\":{}},"
            + "\"status\":\"completed\"}";
    String shellOut = "{\"type\":\"local_shell_call_output\",\"id\":\"lsh_1\",\"output\":\"a b\"}";
    String user = "{\"role\":\"user\",\"content\":\"next\"}";
    assertThat(responsesRejection(go, computer, shot, shell, shellOut, computer, file, user))
        .isNull();
    // by the call's call_id too
    assertThat(responsesRejection(go, shell, shellOut.replace("lsh_1", "ls_1"), user)).isNull();
    // a screenshot written as text, or of another type, or without its image
    assertThat(
            responsesRejection(
                go,
                computer,
                "{\"type\":\"computer_call_output\",\"call_id\":\"cc_1\",\"output\":\"[masked]\"}"))
        .isEqualTo(
            "Invalid type for 'input[2].output': expected an object, but got a string instead.");
    assertThat(responsesRejection(go, computer, shot.replace("computer_screenshot", "input_text")))
        .isEqualTo("Invalid value: 'input_text'. Supported values are: 'computer_screenshot'.");
    assertThat(responsesRejection(go, computer, file.replace("file_id", "x")))
        .isEqualTo("Missing required parameter: 'input[2].output.image_url'.");
    assertThat(responsesRejection(go, shell, shellOut.replace("\"a b\"", "{\"text\":\"a\"}")))
        .isEqualTo(
            "Invalid type for 'input[2].output': expected a string, but got an object instead.");
    // pairing: a call without its output, an output without its call
    assertThat(responsesRejection(go, computer, user))
        .isEqualTo("No tool output found for computer_call cc_1.");
    assertThat(responsesRejection(go, shell))
        .isEqualTo("No tool output found for local_shell_call ls_1.");
    // an output of another kind than its call's
    assertThat(
            responsesRejection(
                go,
                computer,
                "{\"type\":\"function_call_output\",\"call_id\":\"cc_1\",\"output\":\"x\"}"))
        .isEqualTo("No tool call found for function call output with call_id cc_1.");
    String custom =
        "{\"type\":\"custom_tool_call\",\"call_id\":\"ct_1\",\"name\":\"apply_patch\",\"input\":\"p\"}";
    assertThat(
            responsesRejection(
                go,
                custom,
                "{\"type\":\"custom_tool_call_output\",\"call_id\":\"ct_1\",\"output\":\"ok\"}"))
        .isNull();
    assertThat(responsesRejection(go, custom, user))
        .isEqualTo("No tool output found for custom_tool_call ct_1.");
    assertThat(responsesRejection(go, shot))
        .isEqualTo("No tool call found for computer call output with call_id cc_1.");
    assertThat(responsesRejection(go, shellOut))
        .isEqualTo("No tool call found for local shell call output with id lsh_1.");
    assertThat(responsesRejection(go, "{\"type\":\"computer_call\",\"call_id\":\"c\"}"))
        .isEqualTo("Missing required parameter: 'input[1].action'.");
    assertThat(
            responsesRejection(
                go, shell, "{\"type\":\"local_shell_call_output\",\"output\":\"x\"}"))
        .isEqualTo("Missing required parameter: 'input[2].id'.");
  }

  @Test
  void responses_requiredItemFieldsAndReasoningFollowedByItsItem() throws Exception {
    String user = "{\"role\":\"user\",\"content\":\"x\"}";
    String reasoning =
        "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[],"
            + "\"encrypted_content\":\"gAAA\"}";
    String call =
        "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":\"{}\"}";
    String output = "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"ok\"}";

    assertThat(responsesRejection(user, reasoning, call, output)).isNull();
    assertThat(responsesRejection(user, reasoning, user))
        .isEqualTo(
            "Item 'rs_1' of type 'reasoning' was provided without its required following item.");
    assertThat(responsesRejection(user, reasoning)).contains("without its required following item");
    assertThat(
            responsesRejection(
                user, "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\"}", output))
        .isEqualTo("Missing required parameter: 'input[1].arguments'.");
    assertThat(
            responsesRejection(user, call, "{\"type\":\"function_call_output\",\"output\":\"ok\"}"))
        .isEqualTo("Missing required parameter: 'input[2].call_id'.");
    assertThat(responsesRejection("{\"role\":\"user\"}"))
        .isEqualTo("Missing required parameter: 'input[0].content'.");
  }

  @Test
  void anthropic_rolesPairingAndCacheBreakpoints() throws Exception {
    String user = "{\"role\":\"user\",\"content\":\"x\"}";
    String call =
        "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{}}]}";
    String result =
        "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]}";
    String answer = "{\"role\":\"assistant\",\"content\":\"done\"}";
    String head = "{\"model\":\"m\",\"max_tokens\":10,";

    assertThat(messagesRejection(user, call, result, answer, user)).isNull();
    assertThat(messagesRejection(user, call, user))
        .contains(
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1");
    assertThat(messagesRejection(user, answer, result))
        .contains(
            "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t1");
    // consecutive turns of one role are combined by the Messages API, so accepted
    assertThat(messagesRejection(user, user)).isNull();
    assertThat(messagesRejection(user, user, answer, answer, call, result, user, user)).isNull();
    // but a call's results still belong in the very next message, a user one
    assertThat(messagesRejection(user, call, user, result))
        .contains(
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1");
    assertThat(messagesRejection(user, call, answer, result))
        .contains(
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1");
    assertThat(messagesRejection(user, call, result, result))
        .contains(
            "messages.3.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t1");
    assertThat(messagesRejection(answer)).contains("first message must use the \"user\" role");
    assertThat(messagesRejection("{\"role\":\"system\",\"content\":\"s\"}", user))
        .contains("Unexpected role \"system\"");
    assertThat(rejection("/messages", chatBody(user))).isEqualTo("max_tokens: Field required");
    String cached = "{\"type\":\"text\",\"text\":\"s\",\"cache_control\":{\"type\":\"ephemeral\"}}";
    String four = String.join(",", cached, cached, cached, cached);
    assertThat(
            rejection("/messages", head + "\"system\":[" + four + "],\"messages\":[" + user + "]}"))
        .isNull();
    assertThat(
            rejection(
                "/messages",
                head + "\"system\":[" + four + "," + cached + "],\"messages\":[" + user + "]}"))
        .isEqualTo("A maximum of 4 blocks with cache_control may be provided. Found 5.");
  }

  @Test
  void validationOff_acceptsWhatAProviderWouldRefuse() throws Exception {
    try (FakeModelServer lenient = FakeModelServer.builder().validateRequests(false).start()) {
      lenient.enqueue(Reply.text("fine"));
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(lenient.baseUrl() + "/messages"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"messages\":[]}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(lenient.rejections()).isEmpty();
    }
  }
}
