package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.CacheControlEphemeral;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.TextBlockParam;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlock;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Anthropic Java SDK pointed at the proxy (base URL {@code http://127.0.0.1:PORT}), against the
 * fake provider: a tool loop long enough to compact several times, streaming and not, with a {@code
 * cache_control} marker on the system prompt that every request keeps.
 */
class AnthropicSdkProxyTest extends SdkToolLoopTest {
  AnthropicClient client;

  @Override
  Reply toolCall(int n) {
    return Reply.toolCall("toolu_" + n, "bash", readFile(n));
  }

  @BeforeEach
  void startClient() {
    client =
        AnthropicOkHttpClient.builder()
            .baseUrl(f.baseUrl())
            .apiKey("sk-ant-client-key")
            .maxRetries(0)
            .putHeader("X-Compactor-Budget", "6000")
            .build();
  }

  @AfterEach
  void stopClient() {
    client.close();
  }

  private static MessageCreateParams.Builder firstRequest() {
    return MessageCreateParams.builder()
        .model("claude-sonnet-4-5")
        .maxTokens(1024)
        .systemOfTextBlockParams(
            List.of(
                TextBlockParam.builder()
                    .text("You fix failing tests. Use the bash tool.")
                    .cacheControl(CacheControlEphemeral.builder().build())
                    .build()))
        .addUserMessage("The test FooTest fails; find out why and fix it.")
        .addTool(
            Tool.builder()
                .name("bash")
                .description("Runs a shell command")
                .inputSchema(
                    Tool.InputSchema.builder()
                        .properties(
                            Tool.InputSchema.Properties.builder()
                                .putAdditionalProperty(
                                    "cmd", JsonValue.from(Map.of("type", "string")))
                                .build())
                        .build())
                .build());
  }

  private static void answerTools(MessageCreateParams.Builder params, Message reply, int round) {
    params.addMessage(reply);
    List<ContentBlockParam> results = new ArrayList<>();
    for (ContentBlock b : reply.content()) {
      b.toolUse()
          .map(ToolUseBlock::id)
          .ifPresent(
              id ->
                  results.add(
                      ContentBlockParam.ofToolResult(
                          ToolResultBlockParam.builder()
                              .toolUseId(id)
                              .content(output(round))
                              .build())));
    }
    if (!results.isEmpty()) {
      params.addUserMessageOfContentBlockParams(results);
    }
  }

  @Test
  void aToolLoopThroughTheProxyCompactsAndKeepsTheCachedPrefix() {
    MessageCreateParams.Builder params = firstRequest();
    Message last = null;
    for (int round = 0; round < ROUNDS; round++) {
      HttpResponseFor<Message> raw = client.messages().withRawResponse().create(params.build());
      heard(raw.headers()::values);
      last = raw.parse();
      answerTools(params, last, round);
    }
    assertThat(last.content().get(0).text().orElseThrow().text()).isEqualTo(FINAL_TEXT);
    assertProxied();
  }

  @Test
  void aStreamedToolLoopThroughTheProxyCompactsAndKeepsTheCachedPrefix() {
    MessageCreateParams.Builder params = firstRequest();
    Message last = null;
    for (int round = 0; round < ROUNDS; round++) {
      MessageAccumulator acc = MessageAccumulator.create();
      try (HttpResponseFor<StreamResponse<RawMessageStreamEvent>> raw =
          client.messages().withRawResponse().createStreaming(params.build())) {
        heard(raw.headers()::values);
        try (StreamResponse<RawMessageStreamEvent> stream = raw.parse()) {
          stream.stream().forEach(acc::accumulate);
        }
      }
      last = acc.message();
      answerTools(params, last, round);
    }
    assertThat(last.content().get(0).text().orElseThrow().text()).isEqualTo(FINAL_TEXT);
    assertProxied();
    assertThat(f.model.requests()).allMatch(RecordedRequest::streaming);
  }

  private void assertProxied() {
    // valid requests only (tool_use answered in the very next turn, alternating roles, ≤ 4
    // cache_control breakpoints) within the window; the client's own key (this SDK sends it as a
    // bearer token) reached the provider unchanged (local mode); one conversation held it all
    assertLoopProxied("messages", "Bearer sk-ant-client-key");
    List<RecordedRequest> sent = f.model.requests();
    // the client's cache_control marker on the system prompt is on every request
    assertThat(sent)
        .allMatch(r -> r.json().at("/system/0/cache_control/type").asText().equals("ephemeral"));
    // anthropic-version reached the provider unchanged
    assertThat(sent.get(0).header("anthropic-version")).isPresent();
  }
}
