package dev.compactor.chat.auth;

import java.util.List;
import java.util.Optional;

/**
 * API keys, each naming a tenant; kept in the chats' database ({@code ChatStore.keys()}). Only a
 * hash of each key is stored. Thread-safe. Database failures are thrown as the store's {@code
 * ChatStoreException}, whose message names at most a key's prefix.
 *
 * <pre>{@code
 * try (ChatStore store = ChatStores.open(db)) {
 *   NewApiKey k = store.keys().create("acme");      // print k.key() once
 *   Optional<String> tenant = store.keys().authenticate(headerValue);
 * }
 * }</pre>
 */
public interface KeyStore {
  /** Last-used instants are written at most this often per key, in seconds. */
  long TOUCH_INTERVAL_SECONDS = 60;

  /**
   * Creates a key for {@code tenant}.
   *
   * @return the key, with the whole key text (returned only here)
   * @throws IllegalArgumentException when {@code tenant} is not a valid {@link TenantNames name}
   */
  NewApiKey create(String tenant);

  /**
   * The tenant {@code presentedKey} names, or empty when it is malformed, unknown or revoked
   * (whatever the text, null included; a key's hash is compared in constant time). Records the
   * key's last use, at most once every {@value #TOUCH_INTERVAL_SECONDS} seconds per key (not on a
   * read-only store).
   *
   * <p>Throws only when the database fails, and never with the key in the message.
   */
  Optional<String> authenticate(String presentedKey);

  /** Every key, revoked ones included, oldest first. */
  List<ApiKeyInfo> list();

  /** The keys of {@code tenant}, oldest first. */
  List<ApiKeyInfo> list(String tenant);

  /** The key with this id or prefix ({@code cpk_<id>}), if it exists; empty for other text. */
  Optional<ApiKeyInfo> find(String idOrPrefix);

  /**
   * Revokes the key with this id or prefix ({@code cpk_<id>}; {@link ApiKeys#parseIdOrPrefix} reads
   * user input with a clear error). Takes effect at once: the next {@link #authenticate} refuses
   * it. A key already revoked keeps its first revocation instant.
   *
   * @return the key after revocation, or empty when no key has this id (or the text is neither an
   *     id nor a prefix)
   */
  Optional<ApiKeyInfo> revoke(String idOrPrefix);

  /** Whether at least one key is active (a server without one runs in single-tenant local mode). */
  boolean anyActive();
}
