package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.server.proxy.ProxyFixture.Answer;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import dev.compactor.wire.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The proxy over HTTP on a real server, against the fake provider, run on each store: forwarding,
 * credentials, conversations across stateless requests, compaction on the wire, overflow recovery
 * and streaming.
 */
abstract class ProxyContract extends ProxyServerContract {
  static final ObjectNode chat(String model, String... roleAndText) {
    ObjectNode body = ProxyFixture.JSON.createObjectNode().put("model", model);
    ArrayNode messages = body.putArray("messages");
    for (int i = 0; i < roleAndText.length; i += 2) {
      messages.addObject().put("role", roleAndText[i]).put("content", roleAndText[i + 1]);
    }
    return body;
  }

  // ------------------------------------------------------------------ forwarding

  @Test
  void belowTheBudgetTheBodyIsForwardedByteForByteAndTheAnswerRelayedUnchanged() {
    String body =
        "{\"model\":  \"gpt-4o\", \"temperature\": 0.70,\n \"messages\": [{\"role\": \"system\","
            + " \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": \"Hi\"}],"
            + " \"x_unknown\": {\"kept\": [1, 2.50]}}";
    Answer a = f.postForwardedUnchanged("/v1/chat/completions", body);
    assertThat(a.json().at("/choices/0/message/content").asText()).isEqualTo("answer to Hi");
    assertThat(a.header("x-compactor-tokens-after"))
        .isEqualTo(a.header("x-compactor-tokens-before"));
    // the client's key is never stored or logged
    assertThat(f.log()).doesNotContain("sk-client-own");
    String conv = a.header("x-compactor-conversation");
    assertThat(f.proxyStore.log(conv).toString()).doesNotContain("sk-client-own");
  }

  @Test
  void aConversationLargerThanTheChatTaskBodyLimitIsStillForwarded() {
    // 12 MB of history: over the chat-task routes' 10 MB, under the proxy's 64 MB
    String big = "x".repeat(12 * 1024 * 1024);
    ObjectNode body = chat("gpt-4o", "user", "first " + big);
    body.putArray("messages")
        .addAll(
            chat("gpt-4o", "user", "first " + big, "assistant", "ok", "user", "and now?")
                .withArray("messages"));
    Answer a =
        f.post(
            "/v1/chat/completions",
            body.toString(),
            "Authorization",
            "Bearer sk-client-own",
            "X-Compactor-Budget",
            "100000000");
    assertThat(a.status())
        .as(a.body().substring(0, Math.min(300, a.body().length())))
        .isEqualTo(200);
    // read and handled by the proxy (here compacted to fit gpt-4o's window), not refused
    assertThat(a.header("x-compactor-action")).isNotEqualTo("passthrough");
    assertThat(f.model.requests()).hasSize(1);
    assertThat(f.model.rejections()).isEmpty();
  }

  @Test
  void anthropicHeadersGoToTheProviderAndCompactorHeadersDoNot() {
    ObjectNode body = chat("claude-sonnet-4-5", "user", "Hello");
    body.put("max_tokens", 100).put("system", "You are terse.");
    Answer a =
        f.post(
            "/v1/messages",
            body.toString(),
            "x-api-key",
            "sk-ant-client",
            "anthropic-version",
            "2023-06-01",
            "anthropic-beta",
            "context-management-2025-06-27",
            "X-Compactor-Budget",
            "0.5");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    RecordedRequest sent = f.model.lastRequest();
    assertThat(sent.header("x-api-key")).hasValue("sk-ant-client");
    assertThat(sent.header("anthropic-version")).hasValue("2023-06-01");
    assertThat(sent.header("anthropic-beta")).hasValue("context-management-2025-06-27");
    assertThat(sent.header("x-compactor-budget")).isEmpty();
    assertThat(sent.body()).isEqualTo(body.toString());
    assertThat(a.json().path("type").asText()).isEqualTo("message");
    assertThat(a.header("x-compactor-action")).isEqualTo("none");
  }

  @Test
  void aBodyTheProxyCannotReadIsForwardedUnchangedAsPassthrough() {
    Answer a = f.post("/v1/chat/completions", "{not json", "Authorization", "Bearer k");
    assertThat(f.model.lastRequest().body()).isEqualTo("{not json");
    // the provider's own refusal, not the proxy's
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().at("/error/message").asText()).contains("could not parse the JSON body");
    assertThat(a.header("x-compactor-action")).isEqualTo("passthrough");

    Answer b = f.post("/v1/chat/completions", "{\"model\": \"m\", \"messages\": 3}");
    assertThat(b.header("x-compactor-action")).isEqualTo("passthrough");
    assertThat(f.model.lastRequest().body()).isEqualTo("{\"model\": \"m\", \"messages\": 3}");
  }

  @Test
  void providerSideContextManagementIsLeftToTheProviderAndReported() {
    ObjectNode body = chat("claude-sonnet-4-5", "user", "x ".repeat(3000));
    body.put("max_tokens", 100);
    body.putObject("context_management")
        .putArray("edits")
        .addObject()
        .put("type", "clear_tool_uses_20250919");
    Answer a = f.post("/v1/messages", body.toString(), "X-Compactor-Budget", "500");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.header("x-compactor-action")).isEqualTo("passthrough");
    assertThat(a.header("x-compactor-reason")).contains("context_management");
    assertThat(f.model.lastRequest().body()).isEqualTo(body.toString());
  }

  @Test
  void passthroughRoutesReachTheProviderUnchanged() {
    f.model.enqueue(Reply.raw(200, "{\"object\": \"list\", \"data\": [{\"id\": \"gpt-4o\"}]}"));
    Answer models = f.get("/v1/models?limit=5", "Authorization", "Bearer k");
    assertThat(models.status()).isEqualTo(200);
    assertThat(models.body()).isEqualTo("{\"object\": \"list\", \"data\": [{\"id\": \"gpt-4o\"}]}");
    assertThat(models.header("x-compactor-action")).isEqualTo("passthrough");
    assertThat(f.model.lastRequest().path()).isEqualTo("/v1/models");

    ObjectNode count = chat("claude-sonnet-4-5", "user", "How many tokens?");
    Answer c = f.post("/v1/messages/count_tokens", count.toString(), "x-api-key", "k");
    assertThat(c.status()).as(c.body()).isEqualTo(200);
    assertThat(c.json().path("input_tokens").asLong()).isPositive();

    String responses = "{\"model\": \"gpt-4o\", \"input\": \"Hi there\"}";
    Answer r = f.post("/v1/responses", responses, "Authorization", "Bearer k");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(f.model.lastRequest().body()).isEqualTo(responses);
    assertThat(r.json().path("object").asText()).isEqualTo("response");
  }

  @Test
  void aPathPrefixPicksANamedUpstreamAndAnUnknownOneIsNotFound() {
    Answer a = f.post("/u/local/v1/chat/completions", chat("qwen3", "user", "x").toString());
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(f.model.lastRequest().path()).isEqualTo("/v1/chat/completions");
    Answer b = f.post("/u/nowhere/v1/chat/completions", chat("qwen3", "user", "x").toString());
    assertThat(b.status()).isEqualTo(404);
    assertThat(b.body()).contains("nowhere");
  }

  @Test
  void providerErrorsReachTheClientWithTheirStatusHeadersAndBody() {
    f.model.enqueue(Reply.rateLimited().header("retry-after", "7"));
    Answer a = f.post("/v1/chat/completions", chat("gpt-4o", "user", "x").toString());
    assertThat(a.status()).isEqualTo(429);
    assertThat(a.header("retry-after")).isEqualTo("7");
    assertThat(a.json().at("/error/type").asText()).isNotEmpty();
    f.model.enqueue(Reply.raw(404, "{\"error\": {\"message\": \"no such model\"}}"));
    Answer b = f.post("/v1/chat/completions", chat("gpt-4o", "user", "y").toString());
    assertThat(b.status()).isEqualTo(404);
    assertThat(b.body()).isEqualTo("{\"error\": {\"message\": \"no such model\"}}");
  }

  // ------------------------------------------------------------------ conversations

  /** Sends the next turn: the history, the proxy's answer to it appended. */
  private JsonNode turn(ObjectNode body, String... headers) {
    Answer a = f.post("/v1/chat/completions", body.toString(), headers);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.json().at("/choices/0/message");
  }

  @Test
  void aRequestThatContinuesAStoredConversationIsMatchedByContent() {
    ObjectNode body = chat("gpt-4o", "system", "S", "user", "one");
    Answer first = f.post("/v1/chat/completions", body.toString());
    String conv = first.header("x-compactor-conversation");
    ((ArrayNode) body.get("messages")).add(first.json().at("/choices/0/message"));
    ((ArrayNode) body.get("messages")).addObject().put("role", "user").put("content", "two");
    Answer second = f.post("/v1/chat/completions", body.toString());
    assertThat(second.header("x-compactor-conversation")).isEqualTo(conv);
    List<ProxyStore.LogEntry> log = f.proxyStore.log(conv);
    assertThat(log)
        .extracting(ProxyStore.LogEntry::kind)
        .containsExactly("client", "client", "reply", "client", "client", "reply");
    assertThat(log.get(5).body()).contains("answer to two");
  }

  @Test
  void aRequestThatAddsManyItemsAtOnceStillContinuesItsConversation() {
    ObjectNode body = chat("gpt-4o", "system", "S", "user", "one");
    Answer first = f.post("/v1/chat/completions", body.toString());
    String conv = first.header("x-compactor-conversation");
    ArrayNode messages = (ArrayNode) body.get("messages");
    messages.add(first.json().at("/choices/0/message"));
    for (int i = 0; i < 30; i++) {
      messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", "m" + i);
    }
    Answer second = f.post("/v1/chat/completions", body.toString());
    assertThat(second.header("x-compactor-conversation")).isEqualTo(conv);
    assertThat(f.proxyStore.log(conv)).hasSize(3 + 31 + 1);
  }

  @Test
  void aOneByteChangeInAnOldMessageForksAsAnyEdit() {
    ObjectNode body = chat("gpt-4o", "system", "S", "user", "one");
    for (int i = 0; i < 20; i++) {
      body.withArray("messages")
          .addObject()
          .put("role", i % 2 == 0 ? "assistant" : "user")
          .put("content", "message number " + i + " of a long history");
    }
    Answer first = f.post("/v1/chat/completions", body.toString());
    String conv = first.header("x-compactor-conversation");
    body.withArray("messages").add(first.json().at("/choices/0/message"));
    body.withArray("messages").addObject().put("role", "user").put("content", "next");
    String next = body.toString();
    // the same request with one byte changed in message 5: same length, same shape
    String edited = next.replace("message number 5 of", "message number 6 of");
    assertThat(edited).isNotEqualTo(next).hasSameSizeAs(next);
    Answer forked = f.post("/v1/chat/completions", edited);
    assertThat(forked.header("x-compactor-conversation")).isNotEqualTo(conv);
    Answer continued = f.post("/v1/chat/completions", next);
    assertThat(continued.header("x-compactor-conversation")).isEqualTo(conv);
    assertThat(f.proxyStore.log(forked.header("x-compactor-conversation")).get(7).body())
        .contains("message number 6 of");
  }

  @Test
  void twoConversationsSharingTheirFirstRequestDoNotCollide() {
    f.model.enqueue(Reply.text("reply A"), Reply.text("reply B"));
    ObjectNode a = chat("gpt-4o", "system", "Shared system prompt", "user", "Hello");
    ObjectNode b = a.deepCopy();
    JsonNode ra = turn(a);
    JsonNode rb = turn(b);
    ((ArrayNode) a.get("messages")).add(ra);
    ((ArrayNode) a.get("messages")).addObject().put("role", "user").put("content", "A again");
    ((ArrayNode) b.get("messages")).add(rb);
    ((ArrayNode) b.get("messages")).addObject().put("role", "user").put("content", "B again");
    Answer a2 = f.post("/v1/chat/completions", a.toString());
    Answer b2 = f.post("/v1/chat/completions", b.toString());
    assertThat(a2.header("x-compactor-conversation"))
        .isNotEqualTo(b2.header("x-compactor-conversation"));
    // each stored conversation's log holds its own reply, never the other's
    assertThat(f.proxyStore.log(a2.header("x-compactor-conversation")).toString())
        .contains("reply A")
        .doesNotContain("reply B");
    assertThat(f.proxyStore.log(b2.header("x-compactor-conversation")).toString())
        .contains("reply B");
  }

  @Test
  void anEditedHistoryForksANewConversationAndLeavesTheOldOneAlone() {
    ObjectNode body = chat("gpt-4o", "user", "one");
    String conv = f.post("/v1/chat/completions", body.toString()).header(ProxyRoutes.CONVERSATION);
    int before = f.proxyStore.log(conv).size();
    ObjectNode edited = chat("gpt-4o", "user", "one, edited");
    edited.withArray("messages").addObject().put("role", "assistant").put("content", "x");
    edited.withArray("messages").addObject().put("role", "user").put("content", "two");
    String other =
        f.post("/v1/chat/completions", edited.toString()).header(ProxyRoutes.CONVERSATION);
    assertThat(other).isNotEqualTo(conv);
    assertThat(f.proxyStore.log(conv)).hasSize(before);
  }

  @Test
  void theConversationHeaderNamesTheConversationAndAnEditForksUnderTheSameName() {
    ObjectNode body = chat("gpt-4o", "user", "one");
    JsonNode r = turn(body, "X-Compactor-Conversation", "my-chat-1");
    ProxyStore.Conversation c1 = f.proxyStore.byKey("default", "my-chat-1").orElseThrow();
    body.withArray("messages").add(r);
    body.withArray("messages").addObject().put("role", "user").put("content", "two");
    Answer a =
        f.post("/v1/chat/completions", body.toString(), "X-Compactor-Conversation", "my-chat-1");
    assertThat(a.header("x-compactor-conversation")).isEqualTo("my-chat-1");
    assertThat(f.proxyStore.byKey("default", "my-chat-1").orElseThrow().id()).isEqualTo(c1.id());

    ObjectNode edited = chat("gpt-4o", "user", "something else entirely");
    Answer e =
        f.post("/v1/chat/completions", edited.toString(), "X-Compactor-Conversation", "my-chat-1");
    assertThat(e.header("x-compactor-conversation")).isEqualTo("my-chat-1");
    ProxyStore.Conversation c2 = f.proxyStore.byKey("default", "my-chat-1").orElseThrow();
    assertThat(c2.id()).isNotEqualTo(c1.id());
    assertThat(c2.forkedFrom()).isEqualTo(c1.id());
    // the old branch keeps its log
    assertThat(f.proxyStore.byId("default", c1.id()).orElseThrow().lastLength()).isEqualTo(3);
  }

  // ------------------------------------------------------------------ compaction

  /** A tool loop: each round the model calls a tool, the client answers with a long output. */
  private List<RecordedRequest> toolLoop(int rounds, String budget) {
    ObjectNode body = chat("gpt-4o", "system", "You fix bugs.", "user", "Fix the failing test.");
    for (int i = 0; i < rounds; i++) {
      f.model.enqueue(Reply.toolCall("call_" + i, "bash", "{\"cmd\": \"cat file" + i + ".txt\"}"));
      Answer a =
          f.post(
              "/v1/chat/completions",
              body.toString(),
              "X-Compactor-Budget",
              budget,
              "Authorization",
              "Bearer k");
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      heard(a);
      body.withArray("messages").add(a.json().at("/choices/0/message"));
      addToolResult(body, "call_" + i, ("output line " + i + " of a long file\n").repeat(60));
    }
    return f.model.requests();
  }

  @Test
  void atTheBudgetTheProxyCompactsAndKeepsTheCompactedPrefixByteIdentical() {
    List<RecordedRequest> sent = toolLoop(24, "6000");
    assertCompactedWithinTheBudget(sent, "messages");
    // one conversation throughout, its master log holding every item and reply
    assertThat(conversations).hasSize(1);
    assertThat(f.proxyStore.log(conversations.iterator().next())).hasSize(2 + 23 * 2 + 24);
  }

  /** Appends an assistant message that calls {@code bash} (no arguments) as {@code id}. */
  static void addBashCall(ObjectNode body, String id) {
    body.withArray("messages")
        .addObject()
        .put("role", "assistant")
        .putNull("content")
        .putArray("tool_calls")
        .addObject()
        .put("id", id)
        .put("type", "function")
        .putObject("function")
        .put("name", "bash")
        .put("arguments", "{}");
  }

  /** Appends the tool message that answers the call {@code id} with {@code content}. */
  static void addToolResult(ObjectNode body, String id, String content) {
    body.withArray("messages")
        .addObject()
        .put("role", "tool")
        .put("tool_call_id", id)
        .put("content", content);
  }

  /**
   * An Anthropic tool loop as Claude Code sends it: {@code cache_control} on the system prompt and
   * on the last block of the last two turns, so the markers move on every request.
   */
  @Test
  void anAnthropicLoopWithMovingCacheMarkersStaysOneConversationWithinFourMarkers() {
    ObjectNode body = ProxyFixture.JSON.createObjectNode().put("model", "claude-sonnet-4-5");
    body.put("max_tokens", 200);
    body.putArray("system")
        .addObject()
        .put("type", "text")
        .put("text", "You fix bugs.")
        .putObject("cache_control")
        .put("type", "ephemeral");
    ArrayNode turns = ProxyFixture.JSON.createArrayNode();
    ObjectNode task = turns.addObject().put("role", "user");
    task.putArray("content").addObject().put("type", "text").put("text", "Fix the failing test.");
    for (int i = 0; i < 24; i++) {
      f.model.enqueue(Reply.toolCall("toolu_" + i, "bash", "{\"cmd\": \"cat file" + i + "\"}"));
      ArrayNode marked = turns.deepCopy();
      for (int t = Math.max(0, marked.size() - 2); t < marked.size(); t++) {
        JsonNode content = marked.get(t).get("content");
        ((ObjectNode) content.get(content.size() - 1))
            .putObject("cache_control")
            .put("type", "ephemeral");
      }
      body.set("messages", marked);
      Answer a =
          f.post("/v1/messages", body.toString(), "X-Compactor-Budget", "6000", "x-api-key", "k");
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      conversations.add(a.header(ProxyRoutes.CONVERSATION));
      actions.add(a.header(ProxyRoutes.ACTION));
      ObjectNode reply = turns.addObject().put("role", "assistant");
      reply.set("content", a.json().get("content"));
      ObjectNode result = turns.addObject().put("role", "user");
      result
          .putArray("content")
          .addObject()
          .put("type", "tool_result")
          .put("tool_use_id", "toolu_" + i)
          .put("content", ("output line " + i + " of a long file\n").repeat(60));
    }
    List<RecordedRequest> sent = f.model.requests();
    // the provider accepted every request: at most 4 breakpoints, turns alternating, tools paired
    assertThat(f.model.rejections()).isEmpty();
    assertThat(sent).hasSize(24);
    // a moved marker is the same message: one conversation throughout, compacted at the budget
    assertThat(conversations).hasSize(1);
    assertThat(actions).contains("none").anyMatch(x -> !x.equals("none"));
    for (RecordedRequest r : sent) {
      assertThat(markers(r.json())).isBetween(1, 4);
      // the system prompt's marker, and the client's newest one on its last turn, are kept
      assertThat(r.json().at("/system/0/cache_control/type").asText()).isEqualTo("ephemeral");
      JsonNode last = r.json().get("messages").get(r.json().get("messages").size() - 1);
      JsonNode lastBlock = last.get("content").get(last.get("content").size() - 1);
      assertThat(lastBlock.at("/cache_control/type").asText()).isEqualTo("ephemeral");
    }
    // below the budget the stored view goes out unchanged apart from the markers
    int compactions = 0;
    for (int i = 1; i < sent.size(); i++) {
      String prev = Json.write(withoutMarkers(sent.get(i - 1).json().get("messages")));
      String now = Json.write(withoutMarkers(sent.get(i).json().get("messages")));
      if (actions.get(i).equals("none")) {
        assertThat(now).startsWith(prev.substring(0, prev.length() - 1));
      } else {
        compactions++;
      }
    }
    assertThat(compactions).isPositive();
  }

  private static JsonNode withoutMarkers(JsonNode node) {
    JsonNode copy = node.deepCopy();
    strip(copy);
    return copy;
  }

  private static void strip(JsonNode node) {
    if (node.isObject()) {
      ((ObjectNode) node).remove("cache_control");
    }
    node.forEach(ProxyContract::strip);
  }

  private static int markers(JsonNode node) {
    int n = node.isObject() && node.hasNonNull("cache_control") ? 1 : 0;
    for (JsonNode child : node) {
      n += markers(child);
    }
    return n;
  }

  @Test
  void whileToolCallsAwaitResultsNothingIsCompacted() {
    ObjectNode body = chat("gpt-4o", "user", "go");
    for (int i = 0; i < 6; i++) {
      addBashCall(body, "c" + i);
      addToolResult(body, "c" + i, "x ".repeat(2000));
    }
    // the last assistant message's call has no result yet
    addBashCall(body, "pending");
    f.model.contextWindow(0);
    FakeModelServer unvalidated = f.model;
    Answer a = f.post("/v1/chat/completions", body.toString(), "X-Compactor-Budget", "2000");
    assertThat(a.header("x-compactor-action")).isEqualTo("none");
    assertThat(unvalidated.lastRequest().body()).isEqualTo(body.toString());
  }

  @Test
  void aContextOverflowFromTheProviderIsRecoveredBeforeTheClientSeesAnError() {
    assertOverflowRecovered(
        "/v1/chat/completions", chat("gpt-4o", "system", "S", "user", "start"), "messages");
  }

  // ------------------------------------------------------------------ streaming

  @Test
  void aStreamIsRelayedEventByEventUnchangedAndItsReplyStored() {
    List<String> events =
        List.of(
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}",
            ": a comment line the provider sends",
            "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}],"
                + "\"x_new_field\":{\"kept\":true}}",
            "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo!\"},"
                + "\"finish_reason\":\"stop\"}]}",
            "data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,"
                + "\"completion_tokens\":2,\"total_tokens\":11}}",
            "data: [DONE]");
    ObjectNode body = chat("gpt-4o", "user", "stream please");
    String conv = assertStreamRelayedUnchanged("/v1/chat/completions", body, events);
    assertThat(lastLogged(conv)).isEqualTo("{\"role\":\"assistant\",\"content\":\"Hello!\"}");

    // the streamed reply, echoed, continues the conversation
    body.withArray("messages").addObject().put("role", "assistant").put("content", "Hello!");
    body.withArray("messages").addObject().put("role", "user").put("content", "more");
    Answer b = f.post("/v1/chat/completions", body.toString());
    assertThat(b.header("x-compactor-conversation")).isEqualTo(conv);
  }

  @Test
  void anAnthropicStreamIsRelayedAndItsToolUseReplyStored() {
    f.model.enqueue(Reply.toolCall("toolu_1", "bash", "{\"cmd\": \"ls\"}"));
    ObjectNode body = chat("claude-sonnet-4-5", "user", "list files");
    body.put("max_tokens", 200).put("stream", true);
    Answer a = f.post("/v1/messages", body.toString(), "x-api-key", "k");
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body()).contains("event: message_start").contains("event: message_stop");
    JsonNode reply =
        ProxyFixture.JSON.valueToTree(lastLogged(a.header("x-compactor-conversation")));
    assertThat(reply.asText()).contains("tool_use").contains("toolu_1").contains("\"cmd\":\"ls\"");
  }
}
