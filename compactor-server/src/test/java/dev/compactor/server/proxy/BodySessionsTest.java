package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class BodySessionsTest {
  static JsonNode json(String s) {
    return ResponsesProxyContract.Json.parse(s);
  }

  static String of(String body) {
    return BodySessions.of(json(body));
  }

  @Test
  void claudeCodesUserIdGivesItsSessionInBothForms() {
    assertThat(
            of(
                "{\"metadata\": {\"user_id\": \"{\\\"device_id\\\":\\\"d\\\",\\\"account_uuid\\\":"
                    + "\\\"\\\",\\\"session_id\\\":\\\"2c4e1cf0\\\"}\"}}"))
        .isEqualTo("metadata.user_id.session_id:2c4e1cf0");
    assertThat(of("{\"metadata\": {\"user_id\": \"user_ab12_account_u-1_session_7d0e\"}}"))
        .isEqualTo("metadata.user_id.session_id:7d0e");
    // a JSON user_id longer than a session value may be still gives its session
    String device = "d".repeat(300);
    assertThat(
            of(
                "{\"metadata\": {\"user_id\": \"{\\\"device_id\\\":\\\""
                    + device
                    + "\\\",\\\"session_id\\\":\\\"s9\\\"}\"}}"))
        .isEqualTo("metadata.user_id.session_id:s9");
    // otherwise the value whole: JSON without a session, a user_ value without one, anything else
    assertThat(of("{\"metadata\": {\"user_id\": \"{\\\"device_id\\\":\\\"d\\\"}\"}}"))
        .isEqualTo("metadata.user_id:{\"device_id\":\"d\"}");
    assertThat(of("{\"metadata\": {\"user_id\": \"user_42\"}}"))
        .isEqualTo("metadata.user_id:user_42");
    assertThat(of("{\"metadata\": {\"user_id\": \"{not json\"}}"))
        .isEqualTo("metadata.user_id:{not json");
  }

  @Test
  void theFirstUsableSignalWinsAndUnusableValuesAreSkipped() {
    assertThat(
            of(
                "{\"metadata\": {\"user_id\": \"u\", \"litellm_session_id\": \"l\"},"
                    + " \"prompt_cache_key\": \"k\"}"))
        .isEqualTo("metadata.user_id:u");
    assertThat(
            of("{\"litellm_session_id\": \"top\", \"metadata\": {\"litellm_session_id\": \"m\"}}"))
        .isEqualTo("litellm_session_id:top");
    assertThat(of("{\"metadata\": {\"litellm_session_id\": \"m\"}, \"prompt_cache_key\": \"k\"}"))
        .isEqualTo("litellm_session_id:m");
    assertThat(of("{\"prompt_cache_key\": \" k \"}")).isEqualTo("prompt_cache_key:k");
    // blank, over-long, control characters, not a string: skipped for the next signal
    assertThat(
            of(
                "{\"metadata\": {\"user_id\": \"  \", \"litellm_session_id\": \""
                    + "x".repeat(201)
                    + "\"}, \"litellm_session_id\": 7, \"prompt_cache_key\": \"k\"}"))
        .isEqualTo("prompt_cache_key:k");
    assertThat(of("{\"metadata\": {\"user_id\": \"a\\u0001b\"}}")).isNull();
    assertThat(of("{\"metadata\": \"user_id\"}")).isNull();
    assertThat(of("{\"model\": \"gpt-4o\"}")).isNull();
    assertThat(BodySessions.of(json("[]"))).isNull();
    assertThat(BodySessions.of(null)).isNull();
  }
}
