package dev.compactor.chat.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.ChatTaskResult;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.chat.store.ChatSnapshot;
import dev.compactor.chat.store.SqliteChatStore;
import dev.compactor.core.message.Message;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * End-to-end fixture: a {@link ChatTaskService} over a SQLite file, talking HTTP to a local {@link
 * ModelServer}; summary uuids are {@code sum-1}, {@code sum-2}, …
 */
public abstract class ChatTaskFixture {
  protected static final ChatKey KEY = new ChatKey("acme", "chat-1");

  @TempDir protected Path dir;
  protected ModelServer server;
  protected SqliteChatStore store;
  protected ChatTaskService chats;
  private final AtomicInteger uuids = new AtomicInteger();

  @BeforeEach
  void startFixture() {
    server = ModelServer.start();
    store = SqliteChatStore.open(dir.resolve("chats.db"));
    chats = configure(ChatTaskService.builder(store).models(server.models())).build();
  }

  /** Hook for subclasses to change the service. */
  protected ChatTaskService.Builder configure(ChatTaskService.Builder b) {
    return b.ids(() -> "sum-" + uuids.incrementAndGet());
  }

  /** Every test: the service never sent a request the provider would refuse. */
  @AfterEach
  void stopFixture() {
    store.close();
    server.close();
    assertThat(server.fake().rejections()).as("requests a provider would refuse").isEmpty();
  }

  /** One call from the JSON a client would send. */
  protected ChatTaskResult call(String json) {
    return chats.call(KEY, ChatTaskJson.parseRequest(json));
  }

  /** The result as the client sees it. */
  protected JsonNode callJson(String json) {
    return ChatTaskJson.write(call(json));
  }

  /** The call's failure, asserting it has {@code code}. */
  protected ChatTaskException callFails(String json, ChatTaskException.Code code) {
    ChatTaskException[] caught = new ChatTaskException[1];
    assertThatThrownBy(() -> call(json))
        .isInstanceOfSatisfying(ChatTaskException.class, e -> caught[0] = e)
        .satisfies(
            e ->
                org.assertj.core.api.Assertions.assertThat(((ChatTaskException) e).code())
                    .as(e.getMessage())
                    .isEqualTo(code));
    return caught[0];
  }

  protected ChatSnapshot chat() {
    return store.find(KEY).orElseThrow();
  }

  protected List<Message> history() {
    return chat().messages();
  }

  /** A JSON array of {@code n} alternating user/assistant messages {@code "m0"…}. */
  protected static String turns(int n) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append("{\"role\":\"")
          .append(i % 2 == 0 ? "user" : "assistant")
          .append("\",\"content\":\"m")
          .append(i)
          .append("\"}");
    }
    return sb.append(']').toString();
  }
}
