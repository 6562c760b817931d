package dev.compactor.chat.auth;

import java.util.Objects;

/**
 * A key just created: the only time the whole key is known. {@link #toString()} shows only the
 * prefix.
 *
 * @param info the stored key
 * @param key the whole key, {@code cpk_<id>_<secret>}: hand it to its owner once, then forget it
 */
public record NewApiKey(ApiKeyInfo info, String key) {
  public NewApiKey {
    Objects.requireNonNull(info, "info");
    Objects.requireNonNull(key, "key");
  }

  @Override
  public String toString() {
    return "NewApiKey[" + info.prefix() + "…, tenant=" + info.tenant() + "]";
  }
}
