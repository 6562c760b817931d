package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.store.ChatStores;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The request log's lines are JSON objects, whatever the logged strings hold. */
class RequestLogTest {
  @TempDir Path dir;

  @Test
  void everyLineIsOneJsonObjectWithItsStringsEscaped() throws Exception {
    String tenant = "t\"quote\\back\u00e9\u4e2d";
    String text = "line one\nline \"two\"\t\u0001 \u00e9\u4e2d\ud83d\ude00";
    try (ServerFixture f =
        new ServerFixture(
            ChatStores.open(dir.resolve("chats.db").toString()),
            TestTenants.keys(Map.of("key-0123456789abcdef", tenant)),
            ServerSettings.builder().port(0).logContent(true))) {
      String body =
          ServerFixture.JSON
              .createObjectNode()
              .put("model", "openai/gpt-5-mini")
              .set(
                  "messages",
                  ServerFixture.JSON
                      .createArrayNode()
                      .add(
                          ServerFixture.JSON
                              .createObjectNode()
                              .put("role", "user")
                              .put("content", text)))
              .toString();
      assertThat(f.post("/v1/chats/c/calls", body, "key-0123456789abcdef").status()).isEqualTo(200);
      assertThat(f.get("/v1/chats/nope", "key-0123456789abcdef").status()).isEqualTo(404);

      List<String> lines = f.log().lines().toList();
      assertThat(lines).hasSize(2);
      JsonNode call = ServerFixture.JSON.readTree(lines.get(0));
      assertThat(call.path("route").asText()).isEqualTo("/v1/chats/{chat_id}/calls");
      assertThat(call.path("status").asInt()).isEqualTo(200);
      assertThat(call.path("tenant").asText()).isEqualTo(tenant);
      assertThat(call.path("method").asText()).isEqualTo("POST");
      assertThat(call.path("ms").isNumber()).isTrue();
      assertThat(call.path("bytes_in").asLong()).isPositive();
      assertThat(call.path("bytes_out").asLong()).isPositive();
      assertThat(
              ServerFixture.JSON
                  .readTree(call.path("body").asText())
                  .at("/messages/0/content")
                  .asText())
          .isEqualTo(text);
      JsonNode missing = ServerFixture.JSON.readTree(lines.get(1));
      assertThat(missing.path("status").asInt()).isEqualTo(404);
      assertThat(missing.path("error").asText()).isEqualTo("not_found");
      assertThat(missing.has("body")).isFalse();
    }
  }
}
