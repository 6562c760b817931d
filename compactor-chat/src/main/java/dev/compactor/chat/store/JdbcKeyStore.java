package dev.compactor.chat.store;

import dev.compactor.chat.auth.ApiKeyInfo;
import dev.compactor.chat.auth.ApiKeys;
import dev.compactor.chat.auth.KeyStore;
import dev.compactor.chat.auth.NewApiKey;
import dev.compactor.chat.auth.TenantNames;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The {@link KeyStore} of a {@link JdbcChatStore}: table {@code api_keys} of the same database,
 * through the same connections and transactions.
 *
 * <p>Authentication reads the key's row by its public id (the primary key) and compares the hash in
 * constant time. The last use is written only when the stored one is older than {@link
 * KeyStore#TOUCH_INTERVAL_SECONDS}, and at most once per interval per key and process, so a busy
 * key costs one write a minute, not one per request.
 */
final class JdbcKeyStore implements KeyStore {
  private static final Duration TOUCH_INTERVAL = Duration.ofSeconds(TOUCH_INTERVAL_SECONDS);
  private static final String COLUMNS = "id, tenant, created_at, last_used_at, revoked_at";

  private final JdbcChatStore store;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  /** When this process last wrote each key's last use. */
  private final ConcurrentMap<String, Instant> touched = new ConcurrentHashMap<>();

  JdbcKeyStore(JdbcChatStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }

  @Override
  public NewApiKey create(String tenant) {
    TenantNames.check(tenant, "tenant");
    Instant now = now();
    try {
      return store.inWriteTransaction(
          c -> {
            // 40 random bits of id: a collision is rare, and answered by drawing again.
            for (int attempt = 0; ; attempt++) {
              String key = ApiKeys.generate(random);
              String id = ApiKeys.idOf(key).orElseThrow();
              if (find(c, id).isPresent()) {
                if (attempt < 10) {
                  continue;
                }
                throw new IllegalStateException("no free key id after 10 attempts");
              }
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "INSERT INTO api_keys (id, tenant, key_sha256, created_at)"
                          + " VALUES (?, ?, ?, ?)")) {
                ps.setString(1, id);
                ps.setString(2, tenant);
                ps.setString(3, ApiKeys.sha256(key));
                store.setInstant(ps, 4, now);
                ps.executeUpdate();
              }
              return new NewApiKey(new ApiKeyInfo(id, tenant, now, null, null), key);
            }
          });
    } catch (SQLException e) {
      throw store.failed("creating an API key for tenant " + tenant, e);
    }
  }

  @Override
  public Optional<String> authenticate(String presentedKey) {
    Optional<String> id = ApiKeys.idOf(presentedKey);
    if (id.isEmpty()) {
      return Optional.empty();
    }
    String presentedHash = ApiKeys.sha256(presentedKey);
    String stored;
    ApiKeyInfo info;
    try {
      // One indexed read by primary key, in auto-commit mode: no transaction round trips.
      Object[] row =
          store.autoCommit(
              c -> {
                if (store.readOnly() && !tableExists(c)) {
                  return null;
                }
                try (PreparedStatement ps =
                    c.prepareStatement(
                        "SELECT " + COLUMNS + ", key_sha256 FROM api_keys WHERE id = ?")) {
                  ps.setString(1, id.get());
                  try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                        ? new Object[] {infoFrom(rs), rs.getString("key_sha256")}
                        : null;
                  }
                }
              });
      if (row == null) {
        return Optional.empty();
      }
      info = (ApiKeyInfo) row[0];
      stored = (String) row[1];
    } catch (SQLException e) {
      throw store.failed("authenticating API key " + ApiKeys.prefixOf(id.get()), e);
    }
    if (!ApiKeys.sameHash(presentedHash, stored) || !info.active()) {
      return Optional.empty();
    }
    touch(info);
    return Optional.of(info.tenant());
  }

  /** Records the key's use unless it was recorded less than a touch interval ago. */
  private void touch(ApiKeyInfo info) {
    if (store.readOnly()) {
      return;
    }
    Instant now = now();
    Instant threshold = now.minus(TOUCH_INTERVAL);
    if (info.lastUsedAt() != null && info.lastUsedAt().isAfter(threshold)) {
      return;
    }
    // One writer per key and interval in this process; the others go on without writing.
    boolean[] mine = {false};
    touched.compute(
        info.id(),
        (k, last) -> {
          if (last != null && last.isAfter(threshold)) {
            return last;
          }
          mine[0] = true;
          return now;
        });
    if (!mine[0]) {
      return;
    }
    try {
      store.inWriteTransaction(
          c -> {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "UPDATE api_keys SET last_used_at = ? WHERE id = ?"
                        + " AND (last_used_at IS NULL OR last_used_at < ?)")) {
              store.setInstant(ps, 1, now);
              ps.setString(2, info.id());
              store.setInstant(ps, 3, now);
              return ps.executeUpdate();
            }
          });
    } catch (SQLException e) {
      touched.remove(info.id(), now);
      throw store.failed("recording the use of API key " + info.prefix(), e);
    }
  }

  @Override
  public List<ApiKeyInfo> list() {
    return query("SELECT " + COLUMNS + " FROM api_keys ORDER BY created_at, id", null, "listing");
  }

  @Override
  public List<ApiKeyInfo> list(String tenant) {
    TenantNames.check(tenant, "tenant");
    return query(
        "SELECT " + COLUMNS + " FROM api_keys WHERE tenant = ? ORDER BY created_at, id",
        tenant,
        "listing tenant " + tenant + "'s");
  }

  private List<ApiKeyInfo> query(String sql, String parameter, String what) {
    try {
      return store.inReadTransaction(
          c -> {
            if (store.readOnly() && !tableExists(c)) {
              return List.of();
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
              if (parameter != null) {
                ps.setString(1, parameter);
              }
              List<ApiKeyInfo> out = new ArrayList<>();
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  out.add(infoFrom(rs));
                }
              }
              return out;
            }
          });
    } catch (SQLException e) {
      throw store.failed(what + " API keys", e);
    }
  }

  /** Whether a database that was not migrated (opened read-only) has the keys table yet. */
  private static boolean tableExists(Connection c) throws SQLException {
    try (ResultSet rs = c.getMetaData().getTables(null, null, "api_keys", null)) {
      return rs.next();
    }
  }

  @Override
  public Optional<ApiKeyInfo> find(String idOrPrefix) {
    return ApiKeys.idOfPrefix(idOrPrefix).flatMap(this::findId);
  }

  /** {@link #find} of a well-formed key id. */
  private Optional<ApiKeyInfo> findId(String id) {
    try {
      return store.inReadTransaction(c -> find(c, id));
    } catch (SQLException e) {
      throw store.failed("reading API key " + ApiKeys.prefixOf(id), e);
    }
  }

  private Optional<ApiKeyInfo> find(Connection c, String id) throws SQLException {
    if (store.readOnly() && !tableExists(c)) {
      return Optional.empty();
    }
    try (PreparedStatement ps =
        c.prepareStatement("SELECT " + COLUMNS + " FROM api_keys WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(infoFrom(rs)) : Optional.empty();
      }
    }
  }

  @Override
  public Optional<ApiKeyInfo> revoke(String idOrPrefix) {
    return ApiKeys.idOfPrefix(idOrPrefix).flatMap(this::revokeId);
  }

  /** {@link #revoke} of a well-formed key id. */
  private Optional<ApiKeyInfo> revokeId(String id) {
    Instant now = now();
    try {
      return store.inWriteTransaction(
          c -> {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")) {
              store.setInstant(ps, 1, now);
              ps.setString(2, id);
              ps.executeUpdate();
            }
            return find(c, id);
          });
    } catch (SQLException e) {
      throw store.failed("revoking API key " + ApiKeys.prefixOf(id), e);
    }
  }

  @Override
  public boolean anyActive() {
    try {
      return store.inReadTransaction(
          c -> {
            if (store.readOnly() && !tableExists(c)) {
              return false;
            }
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1");
                ResultSet rs = ps.executeQuery()) {
              return rs.next();
            }
          });
    } catch (SQLException e) {
      throw store.failed("reading API keys", e);
    }
  }

  private ApiKeyInfo infoFrom(ResultSet rs) throws SQLException {
    return new ApiKeyInfo(
        rs.getString("id"),
        rs.getString("tenant"),
        store.getInstant(rs, "created_at"),
        store.getInstant(rs, "last_used_at"),
        store.getInstant(rs, "revoked_at"));
  }

  @Override
  public String toString() {
    return "KeyStore[" + store.describe() + "]";
  }
}
