package dev.compactor.chat.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class ApiKeysTest {
  private static final SecureRandom RANDOM = new SecureRandom();

  @Test
  void generate_hasThePrefixAnIdAnd256BitsOfSecret() {
    String k = ApiKeys.generate(RANDOM);
    assertThat(k).matches("cpk_[a-z2-7]{8}_[a-z2-7]{52}");
    // 52 base32 characters carry 260 bits; at least 128 are asked for.
    assertThat(ApiKeys.SECRET_LENGTH * 5).isGreaterThanOrEqualTo(256);
    assertThat(ApiKeys.idOf(k)).contains(k.substring(4, 12));
  }

  @Test
  void idOf_acceptsOnlyTheExactForm() {
    String k = ApiKeys.generate(RANDOM);
    assertThat(ApiKeys.idOf(k)).isPresent();
    assertThat(ApiKeys.idOf(null)).isEmpty();
    assertThat(ApiKeys.idOf(k + "a")).isEmpty();
    assertThat(ApiKeys.idOf(k.substring(1))).isEmpty();
    assertThat(ApiKeys.idOf("xpk" + k.substring(3))).isEmpty();
    assertThat(ApiKeys.idOf(k.replace(k.charAt(20), '1'))).isEmpty();
  }

  @Test
  void parseIdOrPrefix_takesAnIdAPrefixOrAWholeKey() {
    String k = ApiKeys.generate(RANDOM);
    String id = k.substring(4, 12);
    assertThat(ApiKeys.parseIdOrPrefix(id, "PREFIX")).isEqualTo(id);
    assertThat(ApiKeys.parseIdOrPrefix("cpk_" + id, "PREFIX")).isEqualTo(id);
    assertThat(ApiKeys.parseIdOrPrefix(" cpk_" + id + " ", "PREFIX")).isEqualTo(id);
    assertThat(ApiKeys.parseIdOrPrefix(k, "PREFIX")).isEqualTo(id);
  }

  @Test
  void parseIdOrPrefix_refusesOtherText_withoutEchoingALongValue() {
    assertThatThrownBy(() -> ApiKeys.parseIdOrPrefix("cpk_abc", "PREFIX"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PREFIX")
        .hasMessageContaining("\"cpk_abc\"")
        .hasMessageContaining("cpk_ followed by 8 characters");
    // A key with a typo is refused, and only its first 12 characters are shown.
    String k = ApiKeys.generate(RANDOM);
    String typo = k + "!";
    assertThatThrownBy(() -> ApiKeys.parseIdOrPrefix(typo, "PREFIX"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(k.substring(0, 12) + "…")
        .hasMessageNotContaining(k.substring(12));
  }

  @Test
  void sha256_isTheStandardDigest_andSameHashComparesWholeValues() {
    assertThat(ApiKeys.sha256("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(ApiKeys.sameHash(ApiKeys.sha256("a"), ApiKeys.sha256("a"))).isTrue();
    assertThat(ApiKeys.sameHash(ApiKeys.sha256("a"), ApiKeys.sha256("b"))).isFalse();
    assertThat(ApiKeys.sameHash("ab", "abc")).isFalse();
  }

  @Test
  void tenantNames_checkLengthAndCharacters_namingValueAndSource() {
    assertThat(TenantNames.check("acme", "--tenant")).isEqualTo("acme");
    assertThat(TenantNames.check("Acme_Corp-2.eu", "--tenant")).isEqualTo("Acme_Corp-2.eu");
    assertThat(TenantNames.check("a".repeat(64), "--tenant")).hasSize(64);
    assertThatThrownBy(() -> TenantNames.check("-acme", "--tenant"))
        .hasMessageContaining("--tenant")
        .hasMessageContaining("\"-acme\"")
        .hasMessageContaining("begin with a letter or digit");
    assertThatThrownBy(() -> TenantNames.check("acmé", "--tenant")).hasMessageContaining("ASCII");
    assertThatThrownBy(() -> TenantNames.check("a\nb", "--tenant"))
        .hasMessageContaining("\"a\\u000Ab\"");
    assertThatThrownBy(() -> TenantNames.check(null, "--tenant")).hasMessageContaining("empty");
    assertThatThrownBy(() -> TenantNames.check("a".repeat(65), "--tenant"))
        .hasMessageContaining("65 characters")
        .hasMessageContaining("at most 64");
  }
}
