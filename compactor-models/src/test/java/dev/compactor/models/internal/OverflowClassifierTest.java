package dev.compactor.models.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.models.internal.OverflowClassifier.Match;
import dev.compactor.models.internal.OverflowClassifier.Signals;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class OverflowClassifierTest {

  private static Match classify(Signals s) {
    Optional<Match> m = OverflowClassifier.classify(s);
    assertThat(m).as("overflow recognised in %s", s).isPresent();
    return m.get();
  }

  /**
   * A provider's overflow error: what it sends and what the classifier must read from it ({@code
   * null} counts: none can be read).
   */
  private record Overflow(Signals signals, String reason, Long promptTokens, Long contextWindow) {
    static Arguments of(
        String name, Signals signals, String reason, Long promptTokens, Long contextWindow) {
      return Arguments.of(
          Named.of(name, new Overflow(signals, reason, promptTokens, contextWindow)));
    }
  }

  static Stream<Arguments> providerOverflows() {
    return Stream.of(
        Overflow.of(
            "openAiChatCompletions_codeAndCounts",
            Signals.of(
                "This model's maximum context length is 8192 tokens. However, your messages"
                    + " resulted in 8227 tokens. Please reduce the length of the messages.",
                "invalid_request_error",
                "context_length_exceeded"),
            "code context_length_exceeded",
            8227L,
            8192L),
        Overflow.of(
            "openAiResponses_codeWithoutCounts",
            Signals.of(
                "Your input exceeds the context window of this model. Please adjust your input and"
                    + " try again.",
                "invalid_request_error",
                "context_length_exceeded"),
            "code context_length_exceeded",
            null,
            null),
        Overflow.of(
            "anthropicPromptTooLong_countsFromMessage",
            Signals.of(
                "prompt is too long: 208656 tokens > 200000 maximum",
                "invalid_request_error",
                null),
            "message contains \"prompt is too long\"",
            208656L,
            200000L),
        Overflow.of(
            "anthropicInputPlusMaxTokens_promptIsTheFirstTerm",
            Signals.of(
                "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648,"
                    + " decrease input length or `max_tokens` and try again",
                "invalid_request_error",
                null),
            "message contains \"exceed context limit\"",
            189136L,
            204648L),
        Overflow.of(
            "llamaCpp_numericFieldsWin",
            Signals.of(
                    "request (13392 tokens) exceeds the available context size (8192 tokens), try"
                        + " increasing it",
                    "exceed_context_size_error",
                    "400")
                .withCounts(13392L, 8192L),
            "type exceed_context_size_error",
            13392L,
            8192L),
        Overflow.of(
            "llamaCpp_countsFromMessageWhenFieldsMissing",
            Signals.of(
                "request (13392 tokens) exceeds the available context size (8192 tokens), try"
                    + " increasing it",
                null,
                null),
            "message contains \"exceeds the available context size\"",
            13392L,
            8192L),
        Overflow.of(
            "vllm_requestHasInputTokens",
            Signals.of(
                "This model's maximum context length is 32768 tokens. However, your request has"
                    + " 40000 input tokens. Please reduce the length of the input messages.",
                "BadRequestError",
                "400"),
            "message contains \"maximum context length\"",
            40000L,
            32768L),
        Overflow.of(
            "vllm_requestedTokensSplit_promptIsTheMessagesPart",
            Signals.of(
                "This model's maximum context length is 4096 tokens. However, you requested 5000"
                    + " tokens (4500 in the messages, 500 in the completion).",
                null,
                null),
            "message contains \"maximum context length\"",
            4500L,
            4096L),
        Overflow.of(
            "ollama_message",
            Signals.of(
                "the prompt is longer than the context length currently available to the model;"
                    + " try a shorter prompt or a larger num_ctx",
                "api_error",
                null),
            "message contains \"longer than the context length\"",
            null,
            null),
        Overflow.of(
            "thousandsSeparators_areParsed",
            Signals.of("prompt is too long: 1,208,656 tokens > 1,000,000", null, null),
            "message contains \"prompt is too long\"",
            1_208_656L,
            1_000_000L));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("providerOverflows")
  void providerOverflow_isRecognised_withItsReasonAndCounts(Overflow o) {
    Match m = classify(o.signals());
    assertThat(m.reason()).isEqualTo(o.reason());
    assertThat(m.promptTokens())
        .isEqualTo(
            o.promptTokens() == null ? OptionalLong.empty() : OptionalLong.of(o.promptTokens()));
    assertThat(m.contextWindow())
        .isEqualTo(
            o.contextWindow() == null ? OptionalLong.empty() : OptionalLong.of(o.contextWindow()));
  }

  @Test
  void anthropicStopReason() {
    Match m = classify(Signals.ofStopReason("model_context_window_exceeded"));
    assertThat(m.reason()).isEqualTo("stop reason model_context_window_exceeded");
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
