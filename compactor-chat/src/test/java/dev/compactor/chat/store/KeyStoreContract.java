package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.auth.ApiKeyInfo;
import dev.compactor.chat.auth.ApiKeys;
import dev.compactor.chat.auth.KeyStore;
import dev.compactor.chat.auth.NewApiKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the API key store of every {@link ChatStore} must do. Run against SQLite and PostgreSQL by
 * subclasses that provide a fresh store per test.
 */
public abstract class KeyStoreContract {
  private static final Instant T0 = Instant.parse("2026-01-05T08:00:00.250Z");

  /** A clock tests move by hand. */
  static final class ManualClock extends Clock {
    volatile Instant now = T0;

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return now;
    }

    void advanceSeconds(long s) {
      now = now.plusSeconds(s);
    }
  }

  protected final ManualClock clock = new ManualClock();

  private JdbcChatStore store;

  /** Opens the store of the current test; within one test, every call opens the same database. */
  protected abstract JdbcChatStore open();

  /** The chat store under test: fresh and empty for each test (opened on first use). */
  protected final JdbcChatStore store() {
    if (store == null) {
      store = open();
    }
    return store;
  }

  /** The store closed and opened again on the same database. */
  protected final JdbcChatStore reopen() {
    closeStore();
    return store();
  }

  /** Closes the store if it is open; done after every test. */
  @AfterEach
  protected final void closeStore() {
    if (store != null) {
      store.close();
      store = null;
    }
  }

  /** A connection to the store's database, in its schema, to look at the rows directly. */
  protected abstract Connection rawConnection() throws SQLException;

  private KeyStore keys() {
    return store().keys(clock);
  }

  @Test
  void create_returnsAKeyOfTheDocumentedForm_onceAndDifferentEachTime() {
    NewApiKey a = keys().create("acme");
    NewApiKey b = keys().create("acme");

    assertThat(a.key()).matches("cpk_[a-z2-7]{8}_[a-z2-7]{52}").hasSize(ApiKeys.KEY_LENGTH);
    assertThat(a.key()).startsWith(a.info().prefix() + "_");
    assertThat(a.info().tenant()).isEqualTo("acme");
    assertThat(a.info().createdAt()).isEqualTo(T0);
    assertThat(a.info().lastUsedAt()).isNull();
    assertThat(a.info().active()).isTrue();
    assertThat(b.key()).isNotEqualTo(a.key());
    assertThat(b.info().id()).isNotEqualTo(a.info().id());
    assertThat(a.toString()).contains(a.info().prefix()).doesNotContain(a.key());
    assertThat(a.info().toString()).doesNotContain(a.key().substring(13));
  }

  @Test
  void theDatabase_holdsOnlyTheHash_neverTheKeyOrItsSecret() throws Exception {
    NewApiKey k = keys().create("acme");
    String secret = k.key().substring(ApiKeys.PREFIX.length() + ApiKeys.ID_LENGTH + 1);
    List<String> values = new ArrayList<>();
    try (Connection c = rawConnection();
        PreparedStatement ps = c.prepareStatement("SELECT * FROM api_keys");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          values.add(String.valueOf(rs.getObject(i)));
        }
      }
    }
    assertThat(values).contains(k.info().id(), "acme", ApiKeys.sha256(k.key()));
    assertThat(values).noneMatch(v -> v.contains(secret));
  }

  @Test
  void authenticate_theKey_namesItsTenant_anythingElseIsEmpty() {
    NewApiKey acme = keys().create("acme");
    NewApiKey globex = keys().create("globex");

    assertThat(keys().authenticate(acme.key())).contains("acme");
    assertThat(keys().authenticate(globex.key())).contains("globex");

    String k = acme.key();
    char last = k.charAt(k.length() - 1);
    String tampered = k.substring(0, k.length() - 1) + (last == 'a' ? 'b' : 'a');
    String otherSecret = globex.info().prefix() + k.substring(13);
    for (String bad :
        new String[] {
          null,
          "",
          "Bearer " + k,
          k + " ",
          k.toUpperCase(),
          tampered,
          otherSecret,
          k.substring(0, 13),
          "cpk_" + "a".repeat(8) + "_" + "a".repeat(52),
          "x".repeat(100_000),
          k.replace('_', '-')
        }) {
      assertThat(keys().authenticate(bad)).as(String.valueOf(bad)).isEmpty();
    }
  }

  @Test
  void revoke_stopsTheKey_keepsTheFirstInstant_unknownIsEmpty() {
    NewApiKey k = keys().create("acme");
    NewApiKey other = keys().create("acme");
    assertThat(keys().anyActive()).isTrue();

    clock.advanceSeconds(5);
    ApiKeyInfo revoked = keys().revoke(k.info().id()).orElseThrow();
    assertThat(revoked.revokedAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(revoked.active()).isFalse();
    assertThat(keys().authenticate(k.key())).isEmpty();
    assertThat(keys().authenticate(other.key())).contains("acme");

    clock.advanceSeconds(5);
    assertThat(keys().revoke(k.info().id()).orElseThrow().revokedAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(keys().revoke("zzzzzzzz")).isEmpty();
    assertThat(keys().revoke(k.info().prefix()).orElseThrow().revokedAt())
        .as("by prefix")
        .isEqualTo(T0.plusSeconds(5));
    assertThat(keys().revoke(k.key())).as("a whole key is not an id").isEmpty();

    keys().revoke(other.info().id());
    assertThat(keys().anyActive()).isFalse();
    assertThat(keys().list()).hasSize(2).noneMatch(ApiKeyInfo::active);
  }

  @Test
  void list_oldestFirst_allOrOneTenants_withoutSecrets() {
    NewApiKey a = keys().create("acme");
    clock.advanceSeconds(1);
    NewApiKey g = keys().create("globex");
    clock.advanceSeconds(1);
    NewApiKey a2 = keys().create("acme");

    assertThat(keys().list())
        .extracting(ApiKeyInfo::id)
        .containsExactly(a.info().id(), g.info().id(), a2.info().id());
    assertThat(keys().list("acme"))
        .extracting(ApiKeyInfo::id)
        .containsExactly(a.info().id(), a2.info().id());
    assertThat(keys().list("nobody")).isEmpty();
    assertThat(keys().list().get(0)).isEqualTo(a.info());
    assertThat(keys().find(g.info().id())).contains(g.info());
    assertThat(keys().find(g.info().prefix())).contains(g.info());
    assertThat(keys().find(g.key())).as("a whole key is not a prefix").isEmpty();
    assertThat(keys().find("notanid!")).isEmpty();
    assertThat(keys().anyActive()).isTrue();
  }

  @Test
  void noKeys_noneActive() {
    assertThat(keys().anyActive()).isFalse();
    assertThat(keys().list()).isEmpty();
  }

  @Test
  void create_refusesInvalidTenantNames_namingThem() {
    assertThatThrownBy(() -> keys().create("acme corp"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"acme corp\"")
        .hasMessageContaining("letters, digits");
    assertThatThrownBy(() -> keys().create(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> keys().create("a".repeat(65)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65 characters");
    assertThat(keys().list()).isEmpty();
  }

  private Instant storedLastUse(String id) throws SQLException {
    return keys().find(id).orElseThrow().lastUsedAt();
  }

  @Test
  void lastUse_isWrittenAtMostOncePerInterval() throws Exception {
    NewApiKey k = keys().create("acme");
    KeyStore keys = keys();
    assertThat(keys.authenticate(k.key())).isPresent();
    assertThat(storedLastUse(k.info().id())).isEqualTo(T0);

    clock.advanceSeconds(KeyStore.TOUCH_INTERVAL_SECONDS - 1);
    assertThat(keys.authenticate(k.key())).isPresent();
    assertThat(storedLastUse(k.info().id()))
        .as("not written again within the interval")
        .isEqualTo(T0);

    clock.advanceSeconds(2);
    Instant later = clock.instant();
    assertThat(keys.authenticate(k.key())).isPresent();
    assertThat(storedLastUse(k.info().id())).isEqualTo(later);

    // A revoked key's use is not recorded.
    keys.revoke(k.info().id());
    clock.advanceSeconds(3600);
    assertThat(keys.authenticate(k.key())).isEmpty();
    assertThat(storedLastUse(k.info().id())).isEqualTo(later);
  }

  @Test
  void concurrentAuthentications_allSucceed() throws Exception {
    List<NewApiKey> created = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      created.add(keys().create("t" + i));
    }
    KeyStore keys = keys();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Optional<String>>> futures = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        NewApiKey k = created.get(i % 4);
        futures.add(pool.submit(() -> keys.authenticate(k.key())));
      }
      Set<String> tenants = new HashSet<>();
      for (int i = 0; i < futures.size(); i++) {
        Optional<String> t = futures.get(i).get(60, TimeUnit.SECONDS);
        assertThat(t).contains("t" + (i % 4));
        tenants.add(t.get());
      }
      assertThat(tenants).hasSize(4);
    } finally {
      pool.shutdownNow();
    }
    for (NewApiKey k : created) {
      assertThat(storedLastUse(k.info().id())).isEqualTo(T0);
    }
  }

  @Test
  void aFailingDatabase_neverShowsTheKey() {
    NewApiKey k = keys().create("acme");
    KeyStore keys = keys();
    store().close();
    assertThatThrownBy(() -> keys.authenticate(k.key()))
        .isInstanceOf(ChatStoreException.class)
        .hasMessageContaining(k.info().prefix())
        .satisfies(
            e -> {
              for (Throwable t = e; t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).doesNotContain(k.key().substring(13));
              }
            });
  }

  @Test
  void keysAndChats_shareTheDatabase_keysSurviveReopening() {
    NewApiKey k = keys().create("acme");
    assertThat(reopen().keys().authenticate(k.key())).contains("acme");
  }
}
