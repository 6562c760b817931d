package dev.compactor.chat.auth;

import java.time.Instant;
import java.util.Objects;

/**
 * What is known of a stored API key: never its secret or hash.
 *
 * @param id the public id (8 characters {@code a-z2-7})
 * @param tenant the tenant the key names
 * @param createdAt when it was created
 * @param lastUsedAt when it last authenticated a request (recorded at most once a minute), or null
 *     when never
 * @param revokedAt when it was revoked, or null while it is active
 */
public record ApiKeyInfo(
    String id, String tenant, Instant createdAt, Instant lastUsedAt, Instant revokedAt) {
  public ApiKeyInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** {@code cpk_<id>}: how the key is named in lists, logs and {@code keys revoke}. */
  public String prefix() {
    return ApiKeys.prefixOf(id);
  }

  /** Whether the key still authenticates. */
  public boolean active() {
    return revokedAt == null;
  }
}
