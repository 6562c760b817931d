package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.core.JsonValue;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.models.responses.FunctionTool;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseFunctionToolCall;
import com.openai.models.responses.ResponseInputItem;
import com.openai.models.responses.ResponseOutputItem;
import com.openai.models.responses.ResponseStreamEvent;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The official OpenAI Java SDK's Responses API ({@code client.responses().create(…)}) pointed at
 * the proxy, against the fake provider: a stateless function-call loop (the client sends the whole
 * history each time, reasoning items included) long enough to compact several times, streaming and
 * not.
 */
class OpenAiResponsesSdkProxyTest extends OpenAiSdkToolLoopTest {
  @Override
  Reply toolCall(int n) {
    return Reply.toolCall("call_" + n, "bash", readFile(n))
        .reasoning("Reading file " + n + " next.");
  }

  private static ResponseCreateParams params(List<ResponseInputItem> input) {
    return ResponseCreateParams.builder()
        .model("gpt-5")
        .instructions("You fix failing tests. Use the bash tool.")
        .inputOfResponse(input)
        .store(false)
        .addTool(
            FunctionTool.builder()
                .name("bash")
                .description("Runs a shell command")
                .parameters(
                    FunctionTool.Parameters.builder()
                        .putAdditionalProperty("type", JsonValue.from("object"))
                        .build())
                .strict(false)
                .build())
        .build();
  }

  private static List<ResponseInputItem> firstInput() {
    List<ResponseInputItem> input = new ArrayList<>();
    input.add(
        ResponseInputItem.ofEasyInputMessage(
            com.openai.models.responses.EasyInputMessage.builder()
                .role(com.openai.models.responses.EasyInputMessage.Role.USER)
                .content("The test FooTest fails; find out why and fix it.")
                .build()));
    return input;
  }

  /** Appends the response's output items and an output for each function call; the last text. */
  private static String continueWith(Response response, List<ResponseInputItem> input, int round) {
    String text = null;
    List<ResponseFunctionToolCall> functionCalls = new ArrayList<>();
    for (ResponseOutputItem item : response.output()) {
      if (item.isReasoning()) {
        input.add(ResponseInputItem.ofReasoning(item.asReasoning()));
      } else if (item.isMessage()) {
        input.add(ResponseInputItem.ofResponseOutputMessage(item.asMessage()));
        text =
            item.asMessage().content().stream()
                .flatMap(c -> c.outputText().stream())
                .map(t -> t.text())
                .reduce("", String::concat);
      } else if (item.isFunctionCall()) {
        input.add(ResponseInputItem.ofFunctionCall(item.asFunctionCall()));
        functionCalls.add(item.asFunctionCall());
      }
    }
    for (ResponseFunctionToolCall call : functionCalls) {
      input.add(
          ResponseInputItem.ofFunctionCallOutput(
              ResponseInputItem.FunctionCallOutput.builder()
                  .callId(call.callId())
                  .output(output(round))
                  .build()));
    }
    return text;
  }

  @Test
  void aFunctionCallLoopThroughTheProxyCompactsAndKeepsTheCachedPrefix() {
    List<ResponseInputItem> input = firstInput();
    String last = null;
    for (int round = 0; round < ROUNDS; round++) {
      HttpResponseFor<Response> raw =
          client.responses().withRawResponse().create(params(List.copyOf(input)));
      heard(raw.headers()::values);
      last = continueWith(raw.parse(), input, round);
    }
    assertThat(last).isEqualTo(FINAL_TEXT);
    assertProxied();
  }

  @Test
  void aStreamedFunctionCallLoopThroughTheProxyCompactsAndKeepsTheCachedPrefix() {
    List<ResponseInputItem> input = firstInput();
    String last = null;
    for (int round = 0; round < ROUNDS; round++) {
      AtomicReference<Response> completed = new AtomicReference<>();
      AtomicInteger events = new AtomicInteger();
      try (HttpResponseFor<StreamResponse<ResponseStreamEvent>> raw =
          client.responses().withRawResponse().createStreaming(params(List.copyOf(input)))) {
        heard(raw.headers()::values);
        try (StreamResponse<ResponseStreamEvent> stream = raw.parse()) {
          stream.stream()
              .forEach(
                  e -> {
                    events.incrementAndGet();
                    e.completed().ifPresent(c -> completed.set(c.response()));
                  });
        }
      }
      assertThat(events.get()).isGreaterThan(3);
      assertThat(completed.get()).as("round %d ends in response.completed", round).isNotNull();
      last = continueWith(completed.get(), input, round);
    }
    assertThat(last).isEqualTo(FINAL_TEXT);
    assertProxied();
    assertThat(f.model.requests()).allMatch(RecordedRequest::streaming);
  }

  private void assertProxied() {
    // every request the provider saw was valid (call/output pairing, each reasoning item followed
    // by its call, required fields) and fit its window
    int compactions = assertLoopProxied("input", "Bearer " + CLIENT_KEY);
    List<RecordedRequest> sent = f.model.requests();
    // the instructions reach the provider on every request
    assertThat(sent)
        .allMatch(
            r ->
                r.json()
                    .path("instructions")
                    .asText()
                    .equals("You fix failing tests. Use the bash tool."));
    // each call the proxy sends goes with its reasoning item (kept verbatim, or dropped with it)
    for (RecordedRequest r : sent) {
      long reasoning = 0;
      long calls = 0;
      for (var item : r.json().path("input")) {
        reasoning += item.path("type").asText().equals("reasoning") ? 1 : 0;
        calls += item.path("type").asText().equals("function_call") ? 1 : 0;
      }
      assertThat(reasoning).isEqualTo(calls);
    }
    long maxPrompt =
        sent.stream().mapToLong(r -> f.model.estimatePromptTokens(r.json())).max().orElseThrow();
    System.out.printf(
        "Responses SDK loop: %d compactions in %d rounds (%s), largest prompt %d tokens%n",
        compactions,
        ROUNDS,
        String.join(",", actions.stream().filter(a -> !a.equals("none")).toList()),
        maxPrompt);
  }
}
