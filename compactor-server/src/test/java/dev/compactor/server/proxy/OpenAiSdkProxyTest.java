package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import com.openai.models.chat.completions.ChatCompletionMessage;
import com.openai.models.chat.completions.ChatCompletionMessageToolCall;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The official OpenAI Java SDK pointed at the proxy (base URL {@code http://127.0.0.1:PORT/v1}),
 * against the fake provider: a tool loop long enough to compact several times, streaming and not.
 */
class OpenAiSdkProxyTest extends SdkToolLoopTest {
  OpenAIClient client;

  @Override
  Reply toolCall(int n) {
    return Reply.toolCall("call_" + n, "bash", readFile(n));
  }

  @BeforeEach
  void startClient() {
    client =
        OpenAIOkHttpClient.builder()
            .baseUrl(f.baseUrl() + "/v1")
            .apiKey("sk-client-key")
            .maxRetries(0)
            .putHeader("X-Compactor-Budget", "6000")
            .build();
  }

  @AfterEach
  void stopClient() {
    client.close();
  }

  private static ChatCompletionCreateParams.Builder start(String model) {
    return ChatCompletionCreateParams.builder()
        .model(model)
        .addSystemMessage("You fix failing tests. Use the bash tool.")
        .addUserMessage("The test FooTest fails; find out why and fix it.")
        .addTool(
            ChatCompletionFunctionTool.builder()
                .function(
                    FunctionDefinition.builder()
                        .name("bash")
                        .description("Runs a shell command")
                        .parameters(
                            FunctionParameters.builder()
                                .putAdditionalProperty("type", JsonValue.from("object"))
                                .build())
                        .build())
                .build());
  }

  @Test
  void aToolLoopThroughTheProxyCompactsAndKeepsTheCachedPrefix() {
    ChatCompletionCreateParams.Builder params = start("gpt-4o");
    List<String> actions = new ArrayList<>();
    Set<String> conversations = new LinkedHashSet<>();
    ChatCompletionMessage last = null;
    for (int round = 0; round < ROUNDS; round++) {
      HttpResponseFor<ChatCompletion> raw =
          client.chat().completions().withRawResponse().create(params.build());
      actions.add(raw.headers().values("x-compactor-action").get(0));
      conversations.add(raw.headers().values("x-compactor-conversation").get(0));
      last = raw.parse().choices().get(0).message();
      params.addMessage(last);
      for (ChatCompletionMessageToolCall call : last.toolCalls().orElse(List.of())) {
        params.addMessage(
            ChatCompletionToolMessageParam.builder()
                .toolCallId(call.function().orElseThrow().id())
                .content(output(round))
                .build());
      }
    }
    assertThat(last.content()).hasValue(FINAL_TEXT);
    assertProxied(actions, conversations);
  }

  @Test
  void aStreamedToolLoopThroughTheProxyCompactsAndKeepsTheCachedPrefix() {
    ChatCompletionCreateParams.Builder params = start("gpt-4o");
    List<String> actions = new ArrayList<>();
    Set<String> conversations = new LinkedHashSet<>();
    ChatCompletionMessage last = null;
    for (int round = 0; round < ROUNDS; round++) {
      ChatCompletionAccumulator acc = ChatCompletionAccumulator.create();
      try (HttpResponseFor<StreamResponse<ChatCompletionChunk>> raw =
          client.chat().completions().withRawResponse().createStreaming(params.build())) {
        actions.add(raw.headers().values("x-compactor-action").get(0));
        conversations.add(raw.headers().values("x-compactor-conversation").get(0));
        try (StreamResponse<ChatCompletionChunk> stream = raw.parse()) {
          stream.stream().forEach(acc::accumulate);
        }
      }
      last = acc.chatCompletion().choices().get(0).message();
      params.addMessage(last);
      for (ChatCompletionMessageToolCall call : last.toolCalls().orElse(List.of())) {
        params.addMessage(
            ChatCompletionToolMessageParam.builder()
                .toolCallId(call.function().orElseThrow().id())
                .content(output(round))
                .build());
      }
    }
    assertThat(last.content()).hasValue(FINAL_TEXT);
    assertProxied(actions, conversations);
    assertThat(f.model.requests()).allMatch(RecordedRequest::streaming);
  }

  private void assertProxied(List<String> actions, Set<String> conversations) {
    // every request the provider saw was valid (tool pairing, roles) and fit its window
    List<RecordedRequest> sent = assertEveryRoundReachedTheProvider();
    int compactions = PrefixChecks.assertCachePreserving(sent, actions);
    assertCompactedSeveralTimes(compactions);
    // the client's own key reached the provider (local mode) and one conversation held it all
    assertThat(sent.get(0).header("authorization")).hasValue("Bearer sk-client-key");
    assertOneConversationHeldEveryReply(conversations);
  }
}
