package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import dev.compactor.testkit.model.WireFormat;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicChatResponseMetadata;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiChatResponseMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * LangChain4j's chat models pointed at the proxy, as {@code docs/proxy.md} tells: {@code
 * OpenAiChatModel} with {@code baseUrl("http://127.0.0.1:PORT/v1")} and {@code AnthropicChatModel}
 * with {@code baseUrl("http://127.0.0.1:PORT/v1/")}, against the fake provider. Each runs turns of
 * a growing conversation (LangChain4j sends the whole history every time) under {@code
 * X-Compactor-Budget: 2000} until the proxy compacts once, then one turn more: the proxy's headers,
 * as LangChain4j hands them back in the response metadata, show the compaction, and the provider
 * gets the compacted view followed by the new messages.
 */
class LangChain4jProxyTest extends LocalProxyTest {
  static final int BUDGET = 2_000;
  static final int MAX_TURNS = 14;

  @Override
  Reply reply(int n) {
    return Reply.text("Answer " + (n + 1) + ": " + words(40, n + 1));
  }

  @Test
  void openAiChatModelThroughTheProxyCompactsOnce() {
    ChatModel model =
        OpenAiChatModel.builder()
            .baseUrl(f.baseUrl() + "/v1")
            .apiKey("sk-client-key")
            .modelName("gpt-4o-mini")
            .maxRetries(0)
            .customHeaders(Map.of("X-Compactor-Budget", String.valueOf(BUDGET)))
            .build();
    run(
        model,
        r -> ((OpenAiChatResponseMetadata) r.metadata()).rawHttpResponse(),
        WireFormat.CHAT_COMPLETIONS);
    assertThat(f.model.lastRequest().headers().get("authorization"))
        .isEqualTo("Bearer sk-client-key");
  }

  @Test
  void anthropicChatModelThroughTheProxyCompactsOnce() {
    ChatModel model =
        AnthropicChatModel.builder()
            .baseUrl(f.baseUrl() + "/v1/")
            .apiKey("sk-ant-client-key")
            .modelName("claude-sonnet-4-5")
            .maxTokens(1024)
            .maxRetries(0)
            .customHeaders(Map.of("X-Compactor-Budget", String.valueOf(BUDGET)))
            .build();
    run(
        model,
        r -> ((AnthropicChatResponseMetadata) r.metadata()).rawHttpResponse(),
        WireFormat.ANTHROPIC_MESSAGES);
    assertThat(f.model.lastRequest().headers().get("x-api-key")).isEqualTo("sk-ant-client-key");
  }

  /**
   * Turns until the first compaction and one more; checks every turn's headers and what the
   * provider got.
   */
  private void run(
      ChatModel model, Function<ChatResponse, SuccessfulHttpResponse> raw, WireFormat format) {
    List<ChatMessage> history = new ArrayList<>();
    history.add(SystemMessage.from("You are a patient reviewer. Answer in a few sentences."));
    String conversation = null;
    int compactedAt = -1;
    List<String> actions = new ArrayList<>();
    for (int turn = 0; turn < MAX_TURNS; turn++) {
      history.add(UserMessage.from("Question " + turn + ": " + words(120, 1000 + turn)));
      ChatResponse r = model.chat(history);
      history.add(r.aiMessage());
      SuccessfulHttpResponse http = raw.apply(r);
      String action = header(http, ProxyRoutes.ACTION);
      actions.add(action);
      if (conversation == null) {
        conversation = header(http, ProxyRoutes.CONVERSATION);
        assertThat(conversation).startsWith("conv_");
      }
      assertThat(header(http, ProxyRoutes.CONVERSATION))
          .as("turn %d continues the conversation", turn)
          .isEqualTo(conversation);
      long before = Long.parseLong(header(http, ProxyRoutes.TOKENS_BEFORE));
      long after = Long.parseLong(header(http, ProxyRoutes.TOKENS_AFTER));
      RecordedRequest sent = f.model.lastRequest();
      assertThat(sent.format()).isEqualTo(format);
      assertThat(sent.rejected()).as("turn %d: %s", turn, sent.rejection()).isFalse();
      if (!action.equals("none")) {
        assertThat(compactedAt).as("only one compaction, actions %s", actions).isEqualTo(-1);
        assertThat(action).isIn("masked", "trimmed", "summarized");
        assertThat(before).isGreaterThanOrEqualTo(BUDGET);
        assertThat(after).isLessThan(before).isLessThan(BUDGET);
        assertThat(sent.items().size())
            .as("the provider got fewer messages than the client sent")
            .isLessThan(history.size() - 1);
        compactedAt = turn;
        continue;
      }
      assertThat(after).isEqualTo(before);
      if (compactedAt < 0) {
        assertThat(before).isLessThan(BUDGET);
        assertThat(sent.items())
            .hasSize(history.size() - 1 + (format == WireFormat.ANTHROPIC_MESSAGES ? -1 : 0));
        continue;
      }
      // the turn after the compaction: the stored view, then the client's new messages
      List<RecordedRequest> format0 = f.model.requests(format);
      List<JsonNode> previous = format0.get(format0.size() - 2).items();
      List<JsonNode> now = sent.items();
      assertThat(now.size()).isEqualTo(previous.size() + 2).isLessThan(history.size() - 1);
      assertThat(now.subList(0, previous.size())).isEqualTo(previous);
      break;
    }
    assertThat(compactedAt).as("a compaction happened, actions %s", actions).isPositive();
    assertThat(actions).hasSize(compactedAt + 2);
    assertThat(f.model.rejections()).isEmpty();
    assertThat(f.proxyStore.byId("default", conversation)).isPresent();
  }

  private static String header(SuccessfulHttpResponse r, String name) {
    return r.headers().entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(name))
        .map(e -> e.getValue().get(0))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no header " + name + " in " + r.headers()));
  }

  private static final String[] WORDS =
      "the build fails on a missing import in the parser module while the tests of the server pass"
          .split(" ");

  private static String words(int n, long seed) {
    Random rnd = new Random(seed);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : " ").append(WORDS[rnd.nextInt(WORDS.length)]);
    }
    return sb.toString();
  }
}
