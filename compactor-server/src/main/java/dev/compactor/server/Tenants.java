package dev.compactor.server;

import dev.compactor.chat.auth.KeyStore;
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

  /**
   * The tenants of a key store. The mode is decided once, now: keys are required when the store
   * holds an active key, and stay required for the server's life (revoking every key does not open
   * it up); a key created after startup takes effect for a local-mode server at its next start.
   */
  static Tenants of(KeyStore keys) {
    boolean required = keys.anyActive();
    return new Tenants() {
      @Override
      public boolean keysRequired() {
        return required;
      }

      @Override
      public Optional<String> authenticate(String presentedKey) {
        return keys.authenticate(presentedKey);
      }

      @Override
      public String describe() {
        return required
            ? "API keys (Authorization: Bearer <key>; "
                + keys.list().stream().filter(k -> k.active()).count()
                + " active)"
            : localMode().describe()
                + "; create a key with `compactor keys create --tenant NAME`"
                + " to require keys";
      }
    };
  }

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
