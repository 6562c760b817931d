package dev.compactor.models.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RedactorTest {

  @Test
  void knownSecret_isMaskedWherever_itAppears() {
    Redactor r = new Redactor(List.of("my-local-key-42"));
    assertThat(r.redact("bad key my-local-key-42 (my-local-key-42)"))
        .isEqualTo("bad key [REDACTED] ([REDACTED])");
  }

  @Test
  void keyShapedText_isMaskedEvenWhenUnknown() {
    Redactor r = Redactor.shapesOnly();
    assertThat(r.redact("Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz0123"))
        .isEqualTo("Incorrect API key provided: [REDACTED]");
    assertThat(r.redact("x sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA y")).isEqualTo("x [REDACTED] y");
    assertThat(r.redact("Authorization: Bearer abc.def-ghi_jkl")).doesNotContain("abc.def");
    assertThat(r.redact("{\"api_key\": \"supersecretvalue\"}")).doesNotContain("supersecret");
    assertThat(r.redact("x-api-key=0123456789")).doesNotContain("0123456789");
  }

  @Test
  void ordinaryText_isUntouched() {
    Redactor r = new Redactor(List.of("k", "", "   "));
    String s = "prompt is too long: 208656 tokens > 200000 maximum; task-7 asked";
    assertThat(r.redact(s)).isEqualTo(s);
    assertThat(r.redact(null)).isNull();
  }
}
