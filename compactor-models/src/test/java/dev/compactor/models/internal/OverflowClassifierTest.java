package dev.compactor.models.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.models.internal.OverflowClassifier.Match;
import dev.compactor.models.internal.OverflowClassifier.Signals;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OverflowClassifierTest {

  private static Match classify(Signals s) {
    Optional<Match> m = OverflowClassifier.classify(s);
    assertThat(m).as("overflow recognised in %s", s).isPresent();
    return m.get();
  }

  @Test
  void openAiChatCompletions_codeAndCounts() {
    Match m =
        classify(
            Signals.of(
                "This model's maximum context length is 8192 tokens. However, your messages"
                    + " resulted in 8227 tokens. Please reduce the length of the messages.",
                "invalid_request_error",
                "context_length_exceeded"));
    assertThat(m.reason()).isEqualTo("code context_length_exceeded");
    assertThat(m.promptTokens()).hasValue(8227);
    assertThat(m.contextWindow()).hasValue(8192);
  }

  @Test
  void openAiResponses_codeWithoutCounts() {
    Match m =
        classify(
            Signals.of(
                "Your input exceeds the context window of this model. Please adjust your input and"
                    + " try again.",
                "invalid_request_error",
                "context_length_exceeded"));
    assertThat(m.promptTokens()).isEmpty();
    assertThat(m.contextWindow()).isEmpty();
  }

  @Test
  void anthropicPromptTooLong_countsFromMessage() {
    Match m =
        classify(
            Signals.of(
                "prompt is too long: 208656 tokens > 200000 maximum",
                "invalid_request_error",
                null));
    assertThat(m.reason()).isEqualTo("message contains \"prompt is too long\"");
    assertThat(m.promptTokens()).hasValue(208656);
    assertThat(m.contextWindow()).hasValue(200000);
  }

  @Test
  void anthropicInputPlusMaxTokens_promptIsTheFirstTerm() {
    Match m =
        classify(
            Signals.of(
                "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648,"
                    + " decrease input length or `max_tokens` and try again",
                "invalid_request_error",
                null));
    assertThat(m.reason()).isEqualTo("message contains \"exceed context limit\"");
    assertThat(m.promptTokens()).hasValue(189136);
    assertThat(m.contextWindow()).hasValue(204648);
  }

  @Test
  void llamaCpp_numericFieldsWin() {
    Match m =
        classify(
            Signals.of(
                    "request (13392 tokens) exceeds the available context size (8192 tokens), try"
                        + " increasing it",
                    "exceed_context_size_error",
                    "400")
                .withCounts(13392L, 8192L));
    assertThat(m.reason()).isEqualTo("type exceed_context_size_error");
    assertThat(m.promptTokens()).hasValue(13392);
    assertThat(m.contextWindow()).hasValue(8192);
  }

  @Test
  void llamaCpp_countsFromMessageWhenFieldsMissing() {
    Match m =
        classify(
            Signals.of(
                "request (13392 tokens) exceeds the available context size (8192 tokens), try"
                    + " increasing it",
                null,
                null));
    assertThat(m.promptTokens()).hasValue(13392);
    assertThat(m.contextWindow()).hasValue(8192);
  }

  @Test
  void vllm_requestHasInputTokens() {
    Match m =
        classify(
            Signals.of(
                "This model's maximum context length is 32768 tokens. However, your request has"
                    + " 40000 input tokens. Please reduce the length of the input messages.",
                "BadRequestError",
                "400"));
    assertThat(m.reason()).isEqualTo("message contains \"maximum context length\"");
    assertThat(m.promptTokens()).hasValue(40000);
    assertThat(m.contextWindow()).hasValue(32768);
  }

  @Test
  void vllm_requestedTokensSplit_promptIsTheMessagesPart() {
    Match m =
        classify(
            Signals.of(
                "This model's maximum context length is 4096 tokens. However, you requested 5000"
                    + " tokens (4500 in the messages, 500 in the completion).",
                null,
                null));
    assertThat(m.promptTokens()).hasValue(4500);
    assertThat(m.contextWindow()).hasValue(4096);
  }

  @Test
  void ollama_message() {
    Match m =
        classify(
            Signals.of(
                "the prompt is longer than the context length currently available to the model;"
                    + " try a shorter prompt or a larger num_ctx",
                "api_error",
                null));
    assertThat(m.reason()).isEqualTo("message contains \"longer than the context length\"");
    assertThat(m.promptTokens()).isEmpty();
  }

  @Test
  void anthropicStopReason() {
    Match m = classify(Signals.ofStopReason("model_context_window_exceeded"));
    assertThat(m.reason()).isEqualTo("stop reason model_context_window_exceeded");
  }

  @Test
  void thousandsSeparators_areParsed() {
    Match m = classify(Signals.of("prompt is too long: 1,208,656 tokens > 1,000,000", null, null));
    assertThat(m.promptTokens()).hasValue(1_208_656);
    assertThat(m.contextWindow()).hasValue(1_000_000);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "Your input exceeds the context window of this model",
        "Input exceeds model limits",
        "This request exceeds the available context size",
        "max context: maximum context length reached",
      })
  void everyDocumentedPhrase_isRecognised(String message) {
    assertThat(OverflowClassifier.isOverflow(Signals.of(message, null, null))).isTrue();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      nullValues = "null",
      value = {
        "Rate limit reached for gpt-4o on tokens per min (TPM)|rate_limit_error|rate_limit_exceeded",
        "Incorrect API key provided|invalid_request_error|invalid_api_key",
        "Overloaded|overloaded_error|null",
        "null|null|null",
      })
  void otherErrors_areNotOverflow(String message, String type, String code) {
    assertThat(OverflowClassifier.classify(Signals.of(message, type, code))).isEmpty();
    assertThat(OverflowClassifier.isOverflow(Signals.ofStopReason("end_turn"))).isFalse();
  }

  @Test
  void nonPositiveNumericFields_areIgnored() {
    Match m =
        classify(
            Signals.of("request (5 tokens) exceeds the available context size (4 tokens)", "", "")
                .withCounts(0L, -1L));
    assertThat(m.promptTokens()).isEqualTo(OptionalLong.of(5));
    assertThat(m.contextWindow()).isEqualTo(OptionalLong.of(4));
  }
}
