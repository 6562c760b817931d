package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.server.proxy.ProxyFixture.Answer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The proxy's OpenAI Responses route ({@code POST /v1/responses}) over HTTP on a real server,
 * against the fake provider, run on each store: forwarding, matching, compaction, pending calls,
 * overflow recovery, streams and the stateful requests left to the provider.
 */
abstract class ResponsesProxyContract extends ProxyServerContract {
  static ObjectNode responses(String model, String... roleAndText) {
    ObjectNode body = ProxyFixture.JSON.createObjectNode().put("model", model);
    ArrayNode input = body.putArray("input");
    for (int i = 0; i < roleAndText.length; i += 2) {
      input.addObject().put("role", roleAndText[i]).put("content", roleAndText[i + 1]);
    }
    return body;
  }

  /** Appends a {@code function_call} item with empty arguments to {@code input}. */
  static void addFunctionCall(ArrayNode input, String callId, String name) {
    input
        .addObject()
        .put("type", "function_call")
        .put("call_id", callId)
        .put("name", name)
        .put("arguments", "{}");
  }

  /**
   * Appends a completed call item of {@code type} ({@code computer_call}, {@code local_shell_call})
   * to {@code input} and returns it, for its {@code action}.
   */
  static ObjectNode addCompletedCall(ArrayNode input, String type, String id, String callId) {
    return input
        .addObject()
        .put("type", type)
        .put("id", id)
        .put("call_id", callId)
        .put("status", "completed");
  }

  /** Appends the {@code function_call_output} item answering {@code callId} to {@code input}. */
  static void addFunctionCallOutput(ArrayNode input, String callId, String output) {
    input
        .addObject()
        .put("type", "function_call_output")
        .put("call_id", callId)
        .put("output", output);
  }

  // ------------------------------------------------------------------ forwarding and matching

  @Test
  void belowTheBudgetTheBodyIsForwardedByteForByteWithItemsTheProxyDoesNotModel() {
    String body =
        "{\"model\": \"gpt-5\",  \"instructions\": \"Be brief.\", \"store\": false,\n"
            + " \"include\": [\"reasoning.encrypted_content\"], \"input\": ["
            + "{\"type\": \"message\", \"role\": \"user\", \"content\": [{\"type\": \"input_text\","
            + " \"text\": \"Hi\"}]},"
            + " {\"type\": \"reasoning\", \"id\": \"rs_9\", \"summary\": [], \"encrypted_content\":"
            + " \"gAAAAB-opaque\"},"
            + " {\"type\": \"message\", \"role\": \"assistant\", \"id\": \"msg_9\", \"content\":"
            + " [{\"type\": \"output_text\", \"text\": \"Hello.\", \"annotations\": []}]},"
            + " {\"type\": \"x_future_item\", \"payload\": {\"kept\": [1, 2.50]}},"
            + " {\"role\": \"user\", \"content\": \"And now?\"}]}";
    Answer a = f.postForwardedUnchanged("/v1/responses", body);
    assertThat(a.json().path("object").asText()).isEqualTo("response");
    // the master log: instructions, five input items, the reply (the response's output)
    List<ProxyStore.LogEntry> log = f.proxyStore.log(a.header("x-compactor-conversation"));
    assertThat(log).hasSize(7);
    assertThat(log.get(2).body()).contains("gAAAAB-opaque");
    assertThat(log.get(6).kind()).isEqualTo("reply");
    assertThat(log.get(6).body()).startsWith("[").contains("answer to And now?");
  }

  @Test
  void aRequestThatEchoesTheOutputContinuesTheConversationAndAnotherDoesNot() {
    ObjectNode body =
        ProxyFixture.JSON.createObjectNode().put("model", "gpt-4o").put("input", "first");
    Answer a = f.post("/v1/responses", body.toString());
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    String conv = a.header("x-compactor-conversation");

    ObjectNode next = responses("gpt-4o", "user", "first");
    a.json().path("output").forEach(next.withArray("input")::add);
    next.withArray("input").addObject().put("role", "user").put("content", "second");
    Answer b = f.post("/v1/responses", next.toString());
    assertThat(b.header("x-compactor-conversation")).isEqualTo(conv);

    // the same first message with a reply the provider never gave: another conversation
    ObjectNode other = responses("gpt-4o", "user", "first", "assistant", "a different answer");
    other.withArray("input").addObject().put("role", "user").put("content", "second");
    Answer c = f.post("/v1/responses", other.toString());
    assertThat(c.header("x-compactor-conversation")).isNotEqualTo(conv);
    assertThat(f.model.rejections()).isEmpty();
  }

  // ------------------------------------------------------------------ compaction

  /** A tool loop: each round the model reasons and calls a tool; the client answers at length. */
  private List<RecordedRequest> toolLoop(int rounds, String budget) {
    ObjectNode body = responses("gpt-5", "developer", "You fix bugs.", "user", "Fix the test.");
    body.put("instructions", "Use the bash tool.");
    for (int i = 0; i < rounds; i++) {
      f.model.enqueue(
          Reply.toolCall("call_" + i, "bash", "{\"cmd\": \"cat file" + i + ".txt\"}")
              .reasoning("I should read file " + i + "."));
      Answer a = f.post("/v1/responses", body.toString(), "X-Compactor-Budget", budget);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      heard(a);
      a.json().path("output").forEach(body.withArray("input")::add);
      addFunctionCallOutput(
          body.withArray("input"),
          "call_" + i,
          ("output line " + i + " of a long file\n").repeat(60));
    }
    return f.model.requests();
  }

  @Test
  void atTheBudgetTheProxyCompactsAndKeepsTheCompactedPrefixByteIdentical() {
    List<RecordedRequest> sent = toolLoop(24, "6000");
    // every request valid: calls answered, each reasoning item followed by its call
    assertCompactedWithinTheBudget(sent, "input");
    // the instructions stay; the reasoning items that are sent are the provider's, verbatim
    RecordedRequest last = sent.get(sent.size() - 1);
    assertThat(last.json().path("instructions").asText()).isEqualTo("Use the bash tool.");
    for (RecordedRequest r : sent) {
      int reasoning = 0;
      int calls = 0;
      for (JsonNode item : r.json().path("input")) {
        String type = item.path("type").asText();
        if (type.equals("reasoning")) {
          reasoning++;
          assertThat(item.toString()).matches(".*\"id\":\"rs_\\d+\".*I should read file \\d+\\..*");
        } else if (type.equals("function_call")) {
          calls++;
        }
      }
      // each call kept is sent with the reasoning item it came with
      assertThat(reasoning).isEqualTo(calls);
    }
    assertThat(last.json().path("input").toString()).contains("\"type\":\"reasoning\"");
    // one conversation, its master log holding every item and reply
    assertThat(conversations).hasSize(1);
    // 2 input messages + instructions; per round after the first: 2 echoed items + 1 output
    assertThat(f.proxyStore.log(conversations.iterator().next())).hasSize(3 + 23 * 3 + 24);
  }

  /**
   * A computer-use (and, with {@code localShell}, local shell) loop of {@code rounds}: each round a
   * {@code computer_call} answered by a screenshot (an image URL, every third a file id), a {@code
   * function_call} answered at length, and every other round a {@code local_shell_call} answered by
   * its {@code id}; then a question.
   */
  static ObjectNode computerUse(int rounds, boolean localShell) {
    ObjectNode body = responses("computer-use-preview", "user", "Book the flight.");
    body.put("truncation", "auto");
    ArrayNode input = body.withArray("input");
    for (int i = 0; i < rounds; i++) {
      ObjectNode call = addCompletedCall(input, "computer_call", "cu_" + i, "cc_" + i);
      call.putObject("action").put("type", "click").put("x", 100 + i).put("y", 200);
      call.putArray("pending_safety_checks");
      ObjectNode shot =
          input.addObject().put("type", "computer_call_output").put("call_id", "cc_" + i);
      if (i % 3 == 2) {
        shot.putObject("output").put("type", "computer_screenshot").put("file_id", "file-" + i);
      } else {
        // an image of about 800 characters of base64
        shot.putObject("output")
            .put("type", "computer_screenshot")
            .put("image_url", "data:image/png;base64," + ("iVBORw0KGgo" + i).repeat(60));
      }
      shot.putArray("acknowledged_safety_checks");
      addFunctionCall(input, "fc_" + i, "read_page");
      addFunctionCallOutput(
          input, "fc_" + i, ("page text " + i + " with fares and times\n").repeat(40));
      if (localShell && i % 2 == 1) {
        ObjectNode shell = addCompletedCall(input, "local_shell_call", "lsh_" + i, "ls_" + i);
        shell.putObject("action").put("type", "exec").putArray("command").add("ls").add("-l");
        input
            .addObject()
            .put("type", "local_shell_call_output")
            .put("id", "lsh_" + i)
            .put("output", ("file " + i + " listed\n").repeat(60));
      }
    }
    input.addObject().put("role", "user").put("content", "Which fare is cheapest?");
    return body;
  }

  @Test
  void aCompactedComputerUseRequestSendsItsScreenshotsAsTheClientsItems() {
    for (boolean localShell : new boolean[] {false, true}) {
      ObjectNode body = computerUse(20, localShell);
      List<JsonNode> shots = new ArrayList<>();
      for (JsonNode item : body.withArray("input")) {
        if (item.path("type").asText().equals("computer_call_output")) {
          shots.add(item);
        }
      }
      Answer a =
          f.post(
              "/v1/responses",
              body.toString(),
              "X-Compactor-Budget",
              "6000",
              "X-Compactor-Conversation",
              "computer-" + localShell);
      // the fake provider refuses a screenshot written as text, an output without its call
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(f.model.rejections()).isEmpty();
      assertThat(a.header(ProxyRoutes.ACTION))
          .as("%s: %s", localShell, a.header(ProxyRoutes.REASON))
          .isIn("masked", "trimmed", "summarized");
      assertThat(Long.parseLong(a.header(ProxyRoutes.TOKENS_AFTER))).isLessThan(6000);
      RecordedRequest sent = f.model.lastRequest();
      int kept = 0;
      for (JsonNode item : sent.json().path("input")) {
        if (item.path("type").asText().equals("computer_call_output")) {
          // the client's item, byte for byte
          assertThat(shots).contains(item);
          assertThat(sent.body()).contains(item.toString());
          kept++;
        }
      }
      assertThat(kept).isPositive();
      // the tool outputs were masked (or the oldest rounds dropped), the screenshots left alone
      assertThat(sent.body().length()).isLessThan(body.toString().length());
      if (a.header(ProxyRoutes.ACTION).equals("masked")) {
        assertThat(kept).isEqualTo(shots.size());
        assertThat(sent.json().path("input").toString()).doesNotContain("page text 0 with fares");
      }
      if (localShell) {
        assertThat(sent.body()).contains("\"type\":\"local_shell_call_output\"");
      }
    }
  }

  @Test
  void whileFunctionCallsAwaitTheirOutputNothingIsCompacted() {
    ObjectNode body = responses("gpt-4o", "user", "go");
    ArrayNode input = body.withArray("input");
    for (int i = 0; i < 6; i++) {
      addFunctionCall(input, "c" + i, "bash");
      addFunctionCallOutput(input, "c" + i, "x ".repeat(2000));
    }
    // the last call has no output yet
    addFunctionCall(input, "pending", "bash");
    Answer a = f.post("/v1/responses", body.toString(), "X-Compactor-Budget", "2000");
    assertThat(a.header("x-compactor-action")).isEqualTo("none");
    assertThat(f.model.lastRequest().body()).isEqualTo(body.toString());
  }

  @Test
  void aContextOverflowFromTheProviderIsRecoveredBeforeTheClientSeesAnError() {
    ObjectNode body = responses("gpt-4o", "system", "S", "user", "start");
    Answer a = assertOverflowRecovered("/v1/responses", body, "input");
    List<RecordedRequest> sent = f.model.requests();

    // the recovered view is the next request's prefix (with room in the window now)
    f.model.contextWindow(0);
    a.json().path("output").forEach(body.withArray("input")::add);
    body.withArray("input").addObject().put("role", "user").put("content", "thanks");
    Answer b = f.post("/v1/responses", body.toString(), "X-Compactor-Budget", "100000");
    assertThat(b.status()).as(b.body()).isEqualTo(200);
    assertThat(b.header("x-compactor-conversation"))
        .isEqualTo(a.header("x-compactor-conversation"));
    String recovered = PrefixChecks.arrayText(sent.get(sent.size() - 1), "input");
    assertThat(PrefixChecks.arrayText(f.model.lastRequest(), "input"))
        .startsWith(recovered.substring(0, recovered.length() - 1));
  }

  // ------------------------------------------------------------------ streaming

  @Test
  void aStreamIsRelayedEventByEventUnchangedAndItsReplyStored() {
    String item =
        "{\"id\":\"msg_7\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\","
            + "\"content\":[{\"type\":\"output_text\",\"text\":\"Hello!\",\"annotations\":[]}]}";
    List<String> events =
        List.of(
            "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"
                + "\"response\":{\"id\":\"resp_7\",\"status\":\"in_progress\",\"output\":[]}}",
            ": a comment line the provider sends",
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
                + "\"sequence_number\":1,\"item_id\":\"msg_7\",\"output_index\":0,"
                + "\"content_index\":0,\"delta\":\"Hello!\",\"x_new_field\":{\"kept\":true}}",
            "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\","
                + "\"sequence_number\":2,\"output_index\":0,\"item\":"
                + item
                + "}",
            "event: response.completed\ndata: {\"type\":\"response.completed\","
                + "\"sequence_number\":3,\"response\":{\"id\":\"resp_7\",\"status\":\"completed\","
                + "\"output\":["
                + item
                + "],\"usage\":{\"input_tokens\":9,\"output_tokens\":2,\"total_tokens\":11}}}");
    ObjectNode body = responses("gpt-4o", "user", "stream please");
    String conv = assertStreamRelayedUnchanged("/v1/responses", body, events);
    assertThat(lastLogged(conv)).isEqualTo("[" + item + "]");

    // the streamed reply, echoed, continues the conversation
    body.withArray("input").add(Json.parse(item));
    body.withArray("input").addObject().put("role", "user").put("content", "more");
    Answer b = f.post("/v1/responses", body.toString());
    assertThat(b.header("x-compactor-conversation")).isEqualTo(conv);
  }

  @Test
  void aStreamedToolCallIsRebuiltFromItsDoneItemsWhenTheLastEventHasNoOutput() {
    String call =
        "{\"id\":\"fc_1\",\"type\":\"function_call\",\"status\":\"completed\","
            + "\"call_id\":\"call_1\",\"name\":\"bash\",\"arguments\":\"{\\\"cmd\\\":\\\"ls\\\"}\"}";
    f.model.enqueue(
        Reply.rawStream(
            List.of(
                "event: response.created\ndata: {\"type\":\"response.created\","
                    + "\"response\":{\"id\":\"r\",\"output\":[]}}",
                "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\","
                    + "\"output_index\":0,\"item\":"
                    + call
                    + "}",
                "event: response.completed\ndata: {\"type\":\"response.completed\","
                    + "\"response\":{\"id\":\"r\",\"status\":\"completed\"}}")));
    ObjectNode body = responses("gpt-4o", "user", "list files");
    body.put("stream", true);
    Answer a = f.post("/v1/responses", body.toString());
    assertThat(a.status()).isEqualTo(200);
    assertThat(lastLogged(a.header("x-compactor-conversation"))).isEqualTo("[" + call + "]");
  }

  @Test
  void aStreamFromTheFakeProviderIsStoredAndContinued() {
    f.model.enqueue(Reply.toolCall("call_1", "bash", "{\"cmd\": \"ls\"}").reasoning("Look."));
    ObjectNode body = responses("gpt-5", "user", "list files");
    body.put("stream", true);
    Answer a = f.post("/v1/responses", body.toString());
    assertThat(a.body()).contains("event: response.created").contains("response.completed");
    String conv = a.header("x-compactor-conversation");
    JsonNode reply = Json.parse(lastLogged(conv));
    assertThat(reply.path(0).path("type").asText()).isEqualTo("reasoning");
    assertThat(reply.path(1).path("call_id").asText()).isEqualTo("call_1");

    // a client that echoes only the call (not the reasoning) is matched too
    body.withArray("input").add(reply.path(1));
    addFunctionCallOutput(body.withArray("input"), "call_1", "a.txt");
    Answer b = f.post("/v1/responses", body.toString());
    assertThat(b.status()).as(b.body()).isEqualTo(200);
    assertThat(b.header("x-compactor-conversation")).isEqualTo(conv);
    assertThat(f.model.rejections()).isEmpty();
  }

  @Test
  void anOverflowInsideAStreamAfterItStartedIsRelayedNotRecovered() {
    f.model.enqueue(Reply.contextLengthExceeded().inStream());
    ObjectNode body = responses("gpt-4o", "user", "stream please");
    body.put("stream", true);
    Answer a = f.post("/v1/responses", body.toString(), "X-Compactor-Budget", "100000");
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body()).contains("context_length_exceeded");
    assertThat(a.header("x-compactor-action")).isEqualTo("none");
    assertThat(f.model.requests()).hasSize(1);
    // no reply stored: the client will not echo a failed answer
    assertThat(f.proxyStore.log(a.header("x-compactor-conversation")))
        .extracting(ProxyStore.LogEntry::kind)
        .containsExactly("client");
  }

  @Test
  void aClientThatDropsIdsFromTheEchoedItemsIsMatchedByTheirContent() {
    f.model.enqueue(
        Reply.raw(
            200,
            "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"output\":["
                + "{\"id\":\"rs_1\",\"type\":\"reasoning\",\"summary\":[],"
                + "\"encrypted_content\":\"gAAAAB-secret\"},"
                + "{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"completed\","
                + "\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\","
                + "\"text\":\"Done.\",\"annotations\":[]}]}]}"));
    ObjectNode body = responses("gpt-5", "user", "do it");
    Answer a = f.post("/v1/responses", body.toString());
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    ArrayNode input = body.withArray("input");
    input
        .addObject()
        .put("type", "reasoning")
        .put("encrypted_content", "gAAAAB-secret")
        .putArray("summary");
    input.addObject().put("role", "assistant").put("content", "Done.");
    input.addObject().put("role", "user").put("content", "thanks");
    Answer b = f.post("/v1/responses", body.toString());
    assertThat(b.header("x-compactor-conversation"))
        .isEqualTo(a.header("x-compactor-conversation"));
    assertThat(f.model.rejections()).isEmpty();
  }

  // ------------------------------------------------------------------ left to the provider

  @Test
  void statefulRequestsAndProviderCompactionAreForwardedUntouchedAndReported() {
    String big = "x ".repeat(3000);
    ObjectNode chained = responses("gpt-4o", "user", big);
    chained.put("previous_response_id", "resp_123");
    ObjectNode conversation = responses("gpt-4o", "user", big);
    conversation.put("conversation", "conv_abc");
    ObjectNode managed = responses("gpt-4o", "user", big);
    managed.putArray("context_management").addObject().put("type", "compaction");
    ObjectNode compacted = responses("gpt-4o", "user", big);
    compacted
        .withArray("input")
        .addObject()
        .put("type", "compaction")
        .put("encrypted_content", "gAAA");
    compacted.withArray("input").addObject().put("role", "user").put("content", "go on");
    for (var c :
        List.of(
            List.of(chained, "previous_response_id"),
            List.of(conversation, "conversation"),
            List.of(managed, "context_management"),
            List.of(compacted, "compaction item"))) {
      ObjectNode body = (ObjectNode) c.get(0);
      Answer a = f.post("/v1/responses", body.toString(), "X-Compactor-Budget", "500");
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.header("x-compactor-action")).isEqualTo("passthrough");
      assertThat(a.header("x-compactor-reason")).contains((String) c.get(1));
      assertThat(f.model.lastRequest().body()).isEqualTo(body.toString());
      // not read, so in no conversation
      assertThat(a.header("x-compactor-conversation")).isNull();
    }
  }

  @Test
  void anthropicCompactionBlocksAreLeftToTheProviderAndReported() {
    ObjectNode body = ProxyFixture.JSON.createObjectNode().put("model", "claude-sonnet-4-5");
    body.put("max_tokens", 100);
    ArrayNode messages = body.putArray("messages");
    messages.addObject().put("role", "user").put("content", "x ".repeat(3000));
    ObjectNode assistant = messages.addObject().put("role", "assistant");
    assistant.putArray("content").addObject().put("type", "compaction").put("content", "Summary");
    messages.addObject().put("role", "user").put("content", "go on");
    Answer a = f.post("/v1/messages", body.toString(), "X-Compactor-Budget", "500");
    assertThat(a.header("x-compactor-action")).isEqualTo("passthrough");
    assertThat(a.header("x-compactor-reason")).contains("compaction block");
    assertThat(f.model.lastRequest().body()).isEqualTo(body.toString());

    body.remove("messages");
    body.putArray("messages").addObject().put("role", "user").put("content", "x ".repeat(3000));
    body.putObject("context_management")
        .putArray("edits")
        .addObject()
        .put("type", "compact_20260112");
    Answer b = f.post("/v1/messages", body.toString(), "X-Compactor-Budget", "500");
    assertThat(b.header("x-compactor-action")).isEqualTo("passthrough");
    assertThat(b.header("x-compactor-reason")).contains("context_management: compact_20260112");
  }

  /** JSON parsing for the tests. */
  static final class Json {
    static JsonNode parse(String s) {
      try {
        return ProxyFixture.JSON.readTree(s);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
