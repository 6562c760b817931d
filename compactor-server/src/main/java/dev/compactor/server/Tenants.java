package dev.compactor.server;

import dev.compactor.chat.base.ChatKey;
import java.util.Optional;

/**
 * Who is calling: the tenant an API key names. A server whose tenants {@link #keysRequired()
 * require keys} answers {@code 401} to a request without a valid {@code Authorization: Bearer} key;
 * one that does not (single-tenant local mode) serves every request as the {@value
 * ChatKey#DEFAULT_TENANT} tenant and binds only loopback addresses. Implementations are
 * thread-safe.
 */
public interface Tenants {
  /** Whether every request must carry a key. */
  boolean keysRequired();

  /**
   * The tenant of {@code presentedKey}; empty when the key is unknown, revoked or malformed. Never
   * throws with the key in a message.
   */
  Optional<String> authenticate(String presentedKey);

  /** Where the keys are kept, for the startup line (no secrets). */
  String describe();

  /** Single-tenant local mode: no keys, every request is the default tenant's. */
  static Tenants localMode() {
    return new Tenants() {
      @Override
      public boolean keysRequired() {
        return false;
      }

      @Override
      public Optional<String> authenticate(String presentedKey) {
        return Optional.empty();
      }

      @Override
      public String describe() {
        return "local mode (no API keys; tenant " + ChatKey.DEFAULT_TENANT + ")";
      }
    };
  }
}
