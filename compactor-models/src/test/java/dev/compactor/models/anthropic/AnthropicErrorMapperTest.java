package dev.compactor.models.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.model.AuthenticationException;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.NonRetryableModelException;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.UnknownModelException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every Anthropic error body of research-notes.md, mapped. */
class AnthropicErrorMapperTest {
  private static final String KEY = "sk-ant-api03-TESTKEY-0123456789abcdef";
  private final AnthropicErrorMapper mapper = new AnthropicErrorMapper(List.of(KEY));

  static final String PROMPT_TOO_LONG =
      "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is"
          + " too long: 208656 tokens > 200000 maximum\"}}";
  static final String EXCEED_CONTEXT_LIMIT =
      "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"input"
          + " length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease"
          + " input length or `max_tokens` and try again\"}}";

  private static String error(String type, String message) {
    return "{\"type\":\"error\",\"error\":{\"type\":\""
        + type
        + "\",\"message\":\""
        + message
        + "\"},\"request_id\":\"req_1\"}";
  }

  @Test
  void promptTooLong_isOverflowWithCounts() {
    ModelException e = mapper.fromHttp(400, PROMPT_TOO_LONG, null, "claude-sonnet-4-5", null);
    assertThat(e).isInstanceOf(ContextOverflowException.class);
    ContextOverflowException o = (ContextOverflowException) e;
    assertThat(o.promptTokens()).hasValue(208656);
    assertThat(o.contextWindow()).hasValue(200000);
    assertThat(o.errorType()).isEqualTo("invalid_request_error");
    assertThat(o.getMessage())
        .isEqualTo(
            "anthropic: HTTP 400 (invalid_request_error): prompt is too long: 208656 tokens >"
                + " 200000 maximum");
  }

  @Test
  void inputPlusMaxTokens_isOverflowWithThePromptSize() {
    ContextOverflowException o =
        (ContextOverflowException) mapper.fromHttp(400, EXCEED_CONTEXT_LIMIT, null, "m", null);
    assertThat(o.promptTokens()).hasValue(189136);
    assertThat(o.contextWindow()).hasValue(204648);
  }

  @Test
  void authAndPermission_areAuthentication_withoutTheKey() {
    ModelException e =
        mapper.fromHttp(
            401, error("authentication_error", "invalid x-api-key " + KEY), null, "m", null);
    assertThat(e).isInstanceOf(AuthenticationException.class);
    assertThat(e.getMessage()).doesNotContain(KEY);
    assertThat(e.bodyExcerpt()).doesNotContain(KEY);
    assertThat(mapper.fromHttp(403, error("permission_error", "no access"), null, "m", null))
        .isInstanceOf(AuthenticationException.class);
  }

  @Test
  void notFoundModel_isUnknownModel() {
    assertThat(
            mapper.fromHttp(
                404, error("not_found_error", "model: claude-nine"), null, "claude-nine", null))
        .isInstanceOf(UnknownModelException.class);
  }

  @Test
  void rateLimitApiErrorAndOverloaded_areRetryable() {
    ModelException rl =
        mapper.fromHttp(
            429, error("rate_limit_error", "Number of requests"), Duration.ofSeconds(9), "m", null);
    assertThat(rl).isInstanceOf(RetryableModelException.class);
    assertThat(((RetryableModelException) rl).retryAfter()).contains(Duration.ofSeconds(9));
    assertThat(mapper.fromHttp(500, error("api_error", "Internal server error"), null, "m", null))
        .isInstanceOf(RetryableModelException.class);
    assertThat(mapper.fromHttp(529, error("overloaded_error", "Overloaded"), null, "m", null))
        .isInstanceOf(RetryableModelException.class);
    assertThat(mapper.fromStreamEvent(error("overloaded_error", "Overloaded"), "m", null))
        .isInstanceOf(RetryableModelException.class)
        .hasMessage("anthropic: error reported after HTTP 200 (overloaded_error): Overloaded");
  }

  @Test
  void otherClientErrors_areNotRetryable() {
    assertThat(
            mapper.fromHttp(
                400,
                error("invalid_request_error", "Your credit balance is too low"),
                null,
                "m",
                null))
        .isExactlyInstanceOf(NonRetryableModelException.class);
    assertThat(
            mapper.fromHttp(
                413,
                error("request_too_large", "Request exceeds the maximum size"),
                null,
                "m",
                null))
        .isExactlyInstanceOf(NonRetryableModelException.class);
  }
}
