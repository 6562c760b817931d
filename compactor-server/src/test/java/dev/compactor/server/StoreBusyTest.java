package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.store.ChatStores;
import dev.compactor.server.ServerFixture.Answer;
import dev.compactor.testkit.TestPostgres;
import dev.compactor.testkit.model.Reply;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL store whose pool is exhausted: every call in progress holds a connection (its chat's
 * row lock), so with {@code poolSize=2} and two calls in progress, a third waits for the pool's
 * timeout and is answered {@code 503 store_busy}, storing nothing, while the first completes.
 */
class StoreBusyTest {
  private String schema;

  @AfterEach
  void drop() {
    TestPostgres.dropSchema(schema);
  }

  @Test
  void aCallThatFindsNoFreeConnectionIs503AndStoresNothing() throws Exception {
    schema = TestPostgres.newSchema("store_busy");
    String url = TestPostgres.jdbcUrl();
    String db =
        url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema + "&poolSize=2" + user();
    try (ServerFixture f =
        new ServerFixture(
            ChatStores.open(db),
            Tenants.localMode(),
            ServerSettings.builder().port(0),
            Duration.ofSeconds(60))) {
      f.model.replyWith(r -> Reply.text("slow").usage(10, 1).delay(Duration.ofSeconds(14)));
      CompletableFuture<Answer> first = slowCall(f, "a");
      CompletableFuture<Answer> second = slowCall(f, "a2");
      while (f.model.requests().size() < 2) {
        Thread.sleep(20); // both calls hold a connection while the model answers
      }
      Answer busy =
          f.post("/v1/chats/b/calls", ServerFixture.userCall("openai/gpt-5-mini", "second"), null);
      assertThat(busy.status()).as(busy.text()).isEqualTo(503);
      assertThat(busy.code()).isEqualTo("store_busy");
      assertThat(busy.raw().headers().firstValue("Retry-After")).hasValue("1");
      assertThat(first.get().status()).isEqualTo(200);
      assertThat(second.get().status()).isEqualTo(200);
      assertThat(f.get("/v1/chats/b", null).status()).isEqualTo(404);
      assertThat(f.get("/v1/chats/a", null).json().path("message_count").asInt()).isEqualTo(2);
    }
  }

  private static CompletableFuture<Answer> slowCall(ServerFixture f, String chat) {
    return CompletableFuture.supplyAsync(
        () ->
            f.post(
                "/v1/chats/" + chat + "/calls",
                ServerFixture.userCall("openai/gpt-5-mini", "first"),
                null));
  }

  private static String user() {
    String u = TestPostgres.properties().getProperty("user");
    String p = TestPostgres.properties().getProperty("password");
    return (u == null ? "" : "&user=" + u) + (p == null ? "" : "&password=" + p);
  }
}
