package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.auth.NewApiKey;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatStores;
import dev.compactor.server.ServerFixture.Answer;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tenants from the store's API keys, as {@code compactor serve} uses them. */
class StoreKeysTest {
  @TempDir Path dir;

  @Test
  void aStoreWithKeysRequiresThemAndNamesTheTenant() {
    ChatStore store = ChatStores.open(dir.resolve("chats.db").toString());
    NewApiKey acme = store.keys().create("acme");
    NewApiKey old = store.keys().create("acme");
    store.keys().revoke(old.info().id());
    Tenants tenants = Tenants.of(store.keys());
    assertThat(tenants.keysRequired()).isTrue();
    assertThat(tenants.describe()).doesNotContain(acme.key());
    try (ServerFixture f = new ServerFixture(store, tenants)) {
      Answer ok =
          f.post(
              "/v1/chats/c/calls", ServerFixture.userCall("openai/gpt-5-mini", "hi"), acme.key());
      assertThat(ok.status()).as(ok.text()).isEqualTo(200);
      assertThat(ok.json().path("tenant").asText()).isEqualTo("acme");
      assertThat(f.get("/v1/chats/c", old.key()).status()).isEqualTo(401);
      assertThat(f.get("/v1/chats/c", null).status()).isEqualTo(401);
      assertThat(f.log()).doesNotContain(acme.key()).doesNotContain(old.key());
    }
  }

  @Test
  void withoutKeysTheServerIsLocalAndBindsOnlyLoopback() {
    try (ChatStore store = ChatStores.open(dir.resolve("local.db").toString())) {
      Tenants tenants = Tenants.of(store.keys());
      assertThat(tenants.keysRequired()).isFalse();
      ChatTaskService service = ChatTaskService.builder(store).build();
      PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
      assertThatThrownBy(
              () ->
                  CompactorServer.start(
                      ServerSettings.builder().host("0.0.0.0").port(0).build(),
                      service,
                      tenants,
                      sink))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("0.0.0.0")
          .hasMessageContaining("compactor keys create");
      try (CompactorServer s =
          CompactorServer.start(
              ServerSettings.builder().host("127.0.0.1").port(0).build(), service, tenants, sink)) {
        assertThat(s.port()).isPositive();
      }
    }
  }
}
