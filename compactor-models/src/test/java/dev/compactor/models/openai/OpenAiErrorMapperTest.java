package dev.compactor.models.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.AuthenticationException;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.NonRetryableModelException;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.UnknownModelException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every OpenAI-family error body of research-notes.md, mapped. */
class OpenAiErrorMapperTest {
  private static final String KEY = "sk-test-SECRETKEY-0123456789abcdef";
  private final OpenAiErrorMapper openai = new OpenAiErrorMapper("openai", List.of(KEY));

  static final String CC_OVERFLOW =
      "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens. However,"
          + " your messages resulted in 8227 tokens. Please reduce the length of the"
          + " messages.\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
          + "\"code\":\"context_length_exceeded\"}}";
  static final String RESPONSES_OVERFLOW =
      "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\","
          + "\"message\":\"Your input exceeds the context window of this model. Please adjust"
          + " your input and try again.\",\"param\":\"input\"}}";
  static final String RESPONSES_OVERFLOW_EVENT =
      "{\"type\":\"error\",\"sequence_number\":2,\"error\":{\"type\":\"invalid_request_error\","
          + "\"code\":\"context_length_exceeded\",\"message\":\"Your input exceeds the context"
          + " window of this model. Please adjust your input and try again.\","
          + "\"param\":\"input\"}}";
  static final String LLAMACPP_OVERFLOW =
      "{\"error\":{\"code\":400,\"type\":\"exceed_context_size_error\",\"message\":\"request"
          + " (13392 tokens) exceeds the available context size (8192 tokens), try increasing"
          + " it\",\"n_prompt_tokens\":13392,\"n_ctx\":8192}}";
  static final String VLLM_FLAT =
      "{\"object\":\"error\",\"message\":\"This model's maximum context length is 32768 tokens."
          + " However, your request has 40000 input tokens. Please reduce the length of the input"
          + " messages.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}";
  static final String VLLM_NESTED =
      "{\"error\":{\"message\":\"This model's maximum context length is 32768 tokens. However,"
          + " your request has 40000 input tokens. Please reduce the length of the input"
          + " messages.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}";
  static final String OLLAMA_OVERFLOW =
      "{\"error\":{\"message\":\"the prompt is longer than the context length currently"
          + " available to the model; try a shorter prompt or increase num_ctx\","
          + "\"type\":\"api_error\",\"param\":null,\"code\":null}}";

  private static ContextOverflowException overflow(ModelException e) {
    assertThat(e).isInstanceOf(ContextOverflowException.class);
    return (ContextOverflowException) e;
  }

  @Test
  void chatCompletionsOverflow_carriesPromptAndWindow() {
    ContextOverflowException e = overflow(openai.fromHttp(400, CC_OVERFLOW, null, "gpt-4", null));
    assertThat(e.promptTokens()).hasValue(8227);
    assertThat(e.contextWindow()).hasValue(8192);
    assertThat(e.httpStatus()).isEqualTo(400);
    assertThat(e.errorCode()).isEqualTo("context_length_exceeded");
    assertThat(e.errorType()).isEqualTo("invalid_request_error");
    assertThat(e.getMessage())
        .startsWith("openai: HTTP 400 (invalid_request_error, code context_length_exceeded):")
        .contains("8227 tokens");
  }

  @Test
  void responsesOverflow_asHttp400_andAsStreamErrorEvent() {
    ContextOverflowException http =
        overflow(openai.fromHttp(400, RESPONSES_OVERFLOW, null, "m", null));
    assertThat(http.promptTokens()).isEmpty();
    Message partial = Message.assistant("so far");
    ContextOverflowException event =
        overflow(openai.fromStreamEvent(RESPONSES_OVERFLOW_EVENT, "m", partial));
    assertThat(event.httpStatus()).isEqualTo(200);
    assertThat(event.errorCode()).isEqualTo("context_length_exceeded");
    assertThat(event.partialMessage()).contains(partial);
    assertThat(event.hasPartialOutput()).isTrue();
    assertThat(event.getMessage()).contains("error reported after HTTP 200");
  }

  @Test
  void responsesFlatErrorEvent_isReadToo() {
    String flat =
        "{\"type\":\"error\",\"code\":\"context_length_exceeded\",\"message\":\"Your input"
            + " exceeds the context window of this model.\",\"param\":\"input\","
            + "\"sequence_number\":2}";
    ContextOverflowException e = overflow(openai.fromStreamEvent(flat, "m", null));
    assertThat(e.errorType()).isNull();
  }

  /** What the mapper of a keyless {@code provider} makes of an HTTP 400 with {@code body}. */
  private static ContextOverflowException overflowFromHttp400(String provider, String body) {
    return overflow(
        new OpenAiErrorMapper(provider, List.of()).fromHttp(400, body, null, "m", null));
  }

  @Test
  void llamaCppOverflow_takesCountsFromFields() {
    ContextOverflowException e = overflowFromHttp400("llamacpp", LLAMACPP_OVERFLOW);
    assertThat(e.provider()).isEqualTo("llamacpp");
    assertThat(e.errorType()).isEqualTo("exceed_context_size_error");
    assertThat(e.promptTokens()).hasValue(13392);
    assertThat(e.contextWindow()).hasValue(8192);
  }

  @Test
  void vllmOverflow_flatAndNested() {
    OpenAiErrorMapper vllm = new OpenAiErrorMapper("vllm", List.of());
    for (String body : List.of(VLLM_FLAT, VLLM_NESTED)) {
      ContextOverflowException e = overflow(vllm.fromHttp(400, body, null, "m", null));
      assertThat(e.promptTokens()).hasValue(40000);
      assertThat(e.contextWindow()).hasValue(32768);
      assertThat(e.errorCode()).isEqualTo("400");
    }
  }

  @Test
  void ollamaOverflow_byMessage() {
    ContextOverflowException e = overflowFromHttp400("ollama", OLLAMA_OVERFLOW);
    assertThat(e.promptTokens()).isEmpty();
  }

  @Test
  void unauthorized_isAuthentication_andNeverShowsTheKey() {
    String body =
        "{\"error\":{\"message\":\"Incorrect API key provided: "
            + KEY
            + ". You can find your API key at https://platform.openai.com/account/api-keys.\","
            + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}";
    ModelException e = openai.fromHttp(401, body, null, "gpt-4o", null);
    assertThat(e).isInstanceOf(AuthenticationException.class);
    assertThat(e.getMessage()).doesNotContain(KEY).contains("[REDACTED]");
    assertThat(e.toString()).doesNotContain(KEY);
    assertThat(e.bodyExcerpt()).doesNotContain(KEY).contains("[REDACTED]");
    assertThat(e.errorCode()).isEqualTo("invalid_api_key");
  }

  @Test
  void forbidden_isAuthentication() {
    assertThat(
            openai.fromHttp(
                403,
                "{\"error\":{\"message\":\"Country, region, or territory not supported\","
                    + "\"code\":\"unsupported_country_region_territory\"}}",
                null,
                "m",
                null))
        .isInstanceOf(AuthenticationException.class);
  }

  @Test
  void unknownModel_404() {
    String body =
        "{\"error\":{\"message\":\"The model `gpt-9` does not exist or you do not have access to"
            + " it.\",\"type\":\"invalid_request_error\",\"param\":null,"
            + "\"code\":\"model_not_found\"}}";
    ModelException e = openai.fromHttp(404, body, null, "gpt-9", null);
    assertThat(e).isInstanceOf(UnknownModelException.class);
    assertThat(((UnknownModelException) e).model()).isEqualTo("gpt-9");
    assertThat(
            new OpenAiErrorMapper("ollama", List.of())
                .fromHttp(
                    404,
                    "{\"error\":{\"message\":\"model \\\"llama9\\\" not found, try pulling it"
                        + " first\",\"type\":\"api_error\"}}",
                    null,
                    "llama9",
                    null))
        .isInstanceOf(UnknownModelException.class);
    assertThat(openai.fromHttp(404, "{\"detail\":\"Not Found\"}", null, "m", null))
        .isExactlyInstanceOf(NonRetryableModelException.class);
  }

  @Test
  void rateLimit_isRetryableWithRetryAfter_butExhaustedQuotaIsNot() {
    ModelException e =
        openai.fromHttp(
            429,
            "{\"error\":{\"message\":\"Rate limit reached for gpt-4o\",\"type\":\"requests\","
                + "\"code\":\"rate_limit_exceeded\"}}",
            Duration.ofSeconds(3),
            "gpt-4o",
            null);
    assertThat(e).isInstanceOf(RetryableModelException.class);
    assertThat(((RetryableModelException) e).retryAfter()).contains(Duration.ofSeconds(3));
    assertThat(
            openai.fromHttp(
                429,
                "{\"error\":{\"message\":\"You exceeded your current quota, please check your"
                    + " plan and billing details.\",\"type\":\"insufficient_quota\","
                    + "\"code\":\"insufficient_quota\"}}",
                null,
                "gpt-4o",
                null))
        .isExactlyInstanceOf(NonRetryableModelException.class);
  }

  @Test
  void serverErrors_areRetryable_clientErrorsAreNot() {
    assertThat(openai.fromHttp(500, "{\"error\":{\"message\":\"boom\"}}", null, "m", null))
        .isInstanceOf(RetryableModelException.class);
    assertThat(openai.fromHttp(503, "<html>Service Unavailable</html>", null, "m", null))
        .isInstanceOf(RetryableModelException.class)
        .hasMessageContaining("HTTP 503: <html>Service Unavailable</html>");
    assertThat(openai.fromHttp(408, "", null, "m", null))
        .isInstanceOf(RetryableModelException.class)
        .hasMessageContaining("no error message and an empty body");
    assertThat(
            openai.fromHttp(
                400,
                "{\"error\":{\"message\":\"Invalid value for 'temperature'\","
                    + "\"type\":\"invalid_request_error\",\"param\":\"temperature\"}}",
                null,
                "m",
                null))
        .isExactlyInstanceOf(NonRetryableModelException.class);
  }

  @Test
  void streamErrors_serverTrouble_isRetryable() {
    assertThat(
            openai.fromStreamEvent(
                "{\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The server had an"
                    + " error\"}",
                "m",
                null))
        .isInstanceOf(RetryableModelException.class);
    assertThat(
            new OpenAiErrorMapper("llamacpp", List.of())
                .fromStreamEvent(
                    "{\"error\":{\"code\":500,\"message\":\"slot unavailable\","
                        + "\"type\":\"server_error\"}}",
                    "m",
                    null))
        .isInstanceOf(RetryableModelException.class);
    assertThat(
            openai.fromStreamEvent(
                "{\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad tool\"}}",
                "m",
                null))
        .isExactlyInstanceOf(NonRetryableModelException.class);
  }
}
