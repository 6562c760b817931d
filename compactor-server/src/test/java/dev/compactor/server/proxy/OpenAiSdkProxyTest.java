package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The official OpenAI Java SDK pointed at the proxy (base URL {@code http://127.0.0.1:PORT/v1}),
 * against the fake provider: a tool loop long enough to compact several times, streaming and not.
 */
class OpenAiSdkProxyTest extends OpenAiSdkToolLoopTest {
  @Override
  Reply toolCall(int n) {
    return Reply.toolCall("call_" + n, "bash", readFile(n));
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

  /** Appends the reply and an output for each of its tool calls. */
  private static void answerTools(
      ChatCompletionCreateParams.Builder params, ChatCompletionMessage reply, int round) {
    params.addMessage(reply);
    for (ChatCompletionMessageToolCall call : reply.toolCalls().orElse(List.of())) {
      params.addMessage(
          ChatCompletionToolMessageParam.builder()
              .toolCallId(call.function().orElseThrow().id())
              .content(output(round))
              .build());
    }
  }

  @Test
  void aToolLoopThroughTheProxyCompactsAndKeepsTheCachedPrefix() {
    ChatCompletionCreateParams.Builder params = start("gpt-4o");
    ChatCompletionMessage last = null;
    for (int round = 0; round < ROUNDS; round++) {
      HttpResponseFor<ChatCompletion> raw =
          client.chat().completions().withRawResponse().create(params.build());
      heard(raw.headers()::values);
      last = raw.parse().choices().get(0).message();
      answerTools(params, last, round);
    }
    assertThat(last.content()).hasValue(FINAL_TEXT);
    assertProxied();
  }

  @Test
  void aStreamedToolLoopThroughTheProxyCompactsAndKeepsTheCachedPrefix() {
    ChatCompletionCreateParams.Builder params = start("gpt-4o");
    ChatCompletionMessage last = null;
    for (int round = 0; round < ROUNDS; round++) {
      ChatCompletionAccumulator acc = ChatCompletionAccumulator.create();
      try (HttpResponseFor<StreamResponse<ChatCompletionChunk>> raw =
          client.chat().completions().withRawResponse().createStreaming(params.build())) {
        heard(raw.headers()::values);
        try (StreamResponse<ChatCompletionChunk> stream = raw.parse()) {
          stream.stream().forEach(acc::accumulate);
        }
      }
      last = acc.chatCompletion().choices().get(0).message();
      answerTools(params, last, round);
    }
    assertThat(last.content()).hasValue(FINAL_TEXT);
    assertProxied();
    assertThat(f.model.requests()).allMatch(RecordedRequest::streaming);
  }

  private void assertProxied() {
    // every request the provider saw was valid (tool pairing, roles) and fit its window; the
    // client's own key reached the provider (local mode) and one conversation held it all
    assertLoopProxied("messages", "Bearer " + CLIENT_KEY);
  }
}
