package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.testkit.TestPostgres;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Several instances, one database: two server processes ({@link ServerProcess}, each its own JVM)
 * on one PostgreSQL schema serve the same chats over HTTP. Calls on one chat are serialized across
 * the processes by the chat's row lock, calls on different chats run in parallel, and a process
 * killed with {@code kill -9} in the middle of a burst leaves every chat whole.
 *
 * <p>The fake model server runs in this JVM and answers {@code "echo: " + the last user text}, so
 * every stored reply names the call it belongs to.
 */
class SeveralInstancesTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MODEL = "fake/echo";

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private final ExecutorService clients = Executors.newCachedThreadPool();

  /** What the model handler does with a request before answering (the default: nothing). */
  private volatile Function<RecordedRequest, Reply> before = r -> null;

  /** Model requests in flight right now, by chat (the user text's prefix up to the first '/'). */
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();

  /** The most model requests in flight at once on one chat, by chat. */
  private final Map<String, Integer> maxInFlight = new ConcurrentHashMap<>();

  private FakeModelServer model;
  private String schema;
  private ServerProcess a;
  private ServerProcess b;

  @BeforeEach
  void start() {
    model = FakeModelServer.builder().replyWith(this::answer).start();
    schema = TestPostgres.newSchema("server_multi");
    String url = TestPostgres.server().jdbcUrl(schema);
    // both start at once: migrating the new schema twice is what Flyway's lock prevents
    ServerProcess.Launched la = ServerProcess.launch("a", url, schema, model.baseUrl());
    ServerProcess.Launched lb = ServerProcess.launch("b", url, schema, model.baseUrl());
    a = ServerProcess.await(la);
    b = ServerProcess.await(lb);
  }

  @AfterEach
  void stop() {
    clients.shutdownNow();
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
    model.close();
    TestPostgres.dropSchema(schema);
  }

  private Reply answer(RecordedRequest r) {
    String text = r.lastUserText();
    String chat = text.substring(0, text.indexOf('/'));
    AtomicInteger now = inFlight.computeIfAbsent(chat, c -> new AtomicInteger());
    int n = now.incrementAndGet();
    maxInFlight.merge(chat, n, Math::max);
    try {
      Reply scripted = before.apply(r);
      if (scripted == null) {
        // a short pause inside the in-flight window, so that overlapping calls would show
        sleep(5);
      }
      return (scripted == null ? Reply.text("echo: " + text) : scripted).usage(100, 5);
    } finally {
      now.decrementAndGet();
    }
  }

  // ------------------------------------------------------------------ tests

  @Test
  void fiftyConcurrentCallsOnOneChatAcrossTwoProcessesAreAllStoredInOrder() throws Exception {
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      ServerProcess to = i % 2 == 0 ? a : b;
      calls.add(new Call(to, "one", "one/" + i + "/" + to.name));
    }
    long t0 = System.nanoTime();
    List<Result> results = sendAll(calls);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("50 calls on one chat over two processes: %d ms%n", ms);

    for (Result r : results) {
      // on PostgreSQL calls on one chat queue on its row lock: none fails, none conflicts
      assertThat(r.status()).as(r.call() + ": " + r.body() + logs()).isEqualTo(200);
      assertThat(r.json().at("/message/content").asText()).isEqualTo("echo: " + r.call().text());
    }
    // the row lock covers the model call: never two model calls of the chat at once
    assertThat(maxInFlight.get("one")).isEqualTo(1);

    StoredChat chat = read(b, "one");
    assertThat(chat.messages()).hasSize(100);
    assertThat(chat.interactions()).isEqualTo(50);
    assertThat(read(a, "one").messages()).isEqualTo(chat.messages());
    chat.assertWholePairs();
    Set<String> sent = new HashSet<>();
    calls.forEach(c -> sent.add(c.text()));
    assertThat(chat.userTexts()).containsExactlyInAnyOrderElementsOf(sent);
    // each reply is the one its call got, stored once
    for (Result r : results) {
      assertThat(chat.replyIds()).containsOnlyOnce(r.json().at("/message/id").asText());
    }
    // the counters the failsafes check are exact: one more call than allowed trips them
    Result over =
        send(
            new Call(a, "one", "one/over/a"),
            body("one/over/a", null, ", \"stop_on_high_interactions\": 50"));
    assertThat(over.status()).as(over.body()).isEqualTo(422);
    assertThat(over.json().at("/error/code").asText()).isEqualTo("failsafe_interactions");
    Result fits =
        send(
            new Call(b, "one", "one/fits/b"),
            body("one/fits/b", null, ", \"stop_on_high_messages\": 101"));
    assertThat(fits.status()).as(fits.body()).isEqualTo(200);
    assertThat(read(a, "one").interactions()).isEqualTo(51);
  }

  @Test
  void differentChatsRunInParallelAcrossBothProcesses() throws Exception {
    // The first model call of each chat waits until the other chat's has come too (at most 30
    // s): if calls on different chats were serialized, it would wait in vain.
    CountDownLatch bothChats = new CountDownLatch(2);
    Set<String> counted = ConcurrentHashMap.newKeySet();
    AtomicBoolean overlapped = new AtomicBoolean();
    before =
        r -> {
          String chat = r.lastUserText().substring(0, r.lastUserText().indexOf('/'));
          if (counted.add(chat)) {
            bothChats.countDown();
            overlapped.set(await(bothChats));
          }
          return null;
        };
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      for (String chat : List.of("p0", "p1")) {
        ServerProcess to = i % 2 == 0 ? a : b;
        calls.add(new Call(to, chat, chat + "/" + i + "/" + to.name));
      }
    }
    long t0 = System.nanoTime();
    List<Result> results = sendAll(calls);
    System.out.printf(
        "2 chats x 10 calls over two processes: %d ms%n", (System.nanoTime() - t0) / 1_000_000);

    for (Result r : results) {
      assertThat(r.status()).as(r.call() + ": " + r.body() + logs()).isEqualTo(200);
    }
    assertThat(overlapped).as("the two chats had model calls in flight at once").isTrue();
    for (String id : List.of("p0", "p1")) {
      StoredChat chat = read(a, id);
      assertThat(chat.messages()).hasSize(20);
      assertThat(chat.interactions()).isEqualTo(10);
      chat.assertWholePairs();
      assertThat(chat.userTexts()).allMatch(t -> t.startsWith(id + "/")).hasSize(10);
      assertThat(maxInFlight.get(id)).isEqualTo(1);
    }
  }

  @Test
  void killingOneProcessMidBurstLeavesEveryChatWholeAndTheOtherServing() throws Exception {
    // Model calls take 300 ms; once two of a's calls are at the model, a is killed.
    CountDownLatch aBusy = new CountDownLatch(2);
    before =
        r -> {
          if (r.lastUserText().endsWith("/a")) {
            aBusy.countDown();
          }
          return Reply.text("echo: " + r.lastUserText()).delay(Duration.ofMillis(300));
        };
    List<String> chats = List.of("k0", "k1", "k2", "k3");
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      for (String chat : chats) {
        ServerProcess to = (i + chats.indexOf(chat)) % 2 == 0 ? a : b;
        calls.add(new Call(to, chat, chat + "/" + i + "/" + to.name));
      }
    }
    List<Future<Result>> pending = submitAll(calls);
    assertThat(aBusy.await(60, TimeUnit.SECONDS)).as("a's calls reached the model").isTrue();
    a.kill();
    List<Result> results = new ArrayList<>();
    for (Future<Result> f : pending) {
      results.add(f.get(120, TimeUnit.SECONDS));
    }

    List<Result> answered = results.stream().filter(r -> r.status() == 200).toList();
    List<Result> unanswered = results.stream().filter(r -> r.status() != 200).toList();
    System.out.printf(
        "kill -9 mid-burst: %d calls answered, %d unanswered%n",
        answered.size(), unanswered.size());
    // b never went away: all its calls succeed, those waiting on a's row locks included
    for (Result r : results) {
      if (r.call().to() == b) {
        assertThat(r.status()).as(r.call() + ": " + r.body() + logs()).isEqualTo(200);
      }
    }
    // a died with calls in flight: they got no answer (a connection error, no status)
    assertThat(unanswered).isNotEmpty().allMatch(r -> r.call().to() == a && r.status() == -1);

    Map<String, StoredChat> stored = new HashMap<>();
    for (String id : chats) {
      StoredChat chat = read(b, id);
      stored.put(id, chat);
      // a user message is there exactly when its reply is, for answered and unanswered calls
      // alike (an unanswered one may have been committed just before a died)
      chat.assertWholePairs();
      assertThat(chat.interactions()).isEqualTo(chat.messages().size() / 2);
      assertThat(new HashSet<>(chat.userTexts())).hasSameSizeAs(chat.userTexts());
    }
    for (Result r : answered) {
      StoredChat chat = stored.get(r.call().chat());
      assertThat(chat.userTexts()).containsOnlyOnce(r.call().text());
      assertThat(chat.replyIds()).containsOnlyOnce(r.json().at("/message/id").asText());
    }
    // b keeps serving: every unanswered call retried on b with the same message id is either
    // refused as already stored or stored now, so each call ends up stored exactly once
    for (Result r : unanswered) {
      Result retry = send(new Call(b, r.call().chat(), r.call().text()));
      boolean wasStored = stored.get(r.call().chat()).userTexts().contains(r.call().text());
      if (wasStored) {
        assertThat(retry.status()).as(retry.body()).isEqualTo(400);
        assertThat(retry.body()).contains("already in the chat");
      } else {
        assertThat(retry.status()).as(retry.body() + logs()).isEqualTo(200);
      }
    }
    int total = 0;
    for (String id : chats) {
      StoredChat chat = read(b, id);
      chat.assertWholePairs();
      List<String> expected =
          calls.stream().filter(c -> c.chat().equals(id)).map(Call::text).toList();
      assertThat(chat.userTexts()).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(chat.interactions()).isEqualTo(expected.size());
      total += chat.messages().size();
    }
    assertThat(total).isEqualTo(2 * calls.size());
  }

  // ------------------------------------------------------------------ helpers

  /** One chat-task call: where it goes, on which chat, with which (unique) user text. */
  record Call(ServerProcess to, String chat, String text) {
    @Override
    public String toString() {
      return "call " + text + " to " + to.name;
    }
  }

  /** A call's answer; status -1 when the connection failed without one. */
  record Result(Call call, int status, String body, JsonNode json) {}

  /**
   * A call's body: one user message whose id is its text, so that a retry after a lost answer is
   * recognised ("already in the chat").
   */
  static String body(String text, String model, String extra) {
    ObjectNode o = JSON.createObjectNode();
    o.put("model", model == null ? MODEL : model);
    o.putArray("messages").addObject().put("role", "user").put("id", text).put("content", text);
    String s = o.toString();
    return extra == null ? s : s.substring(0, s.length() - 1) + extra + "}";
  }

  private Result send(Call c) {
    return send(c, body(c.text(), null, null));
  }

  private Result send(Call c, String body) {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(c.to().baseUrl + "/v1/chats/" + c.chat() + "/calls"))
            .timeout(Duration.ofSeconds(120))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
      return new Result(c, r.statusCode(), r.body(), JSON.readTree(r.body()));
    } catch (IOException e) {
      return new Result(c, -1, e.toString(), null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Sends every call at once, each from its own thread. */
  private List<Future<Result>> submitAll(List<Call> calls) {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Result>> futures = new ArrayList<>();
    for (Call c : calls) {
      futures.add(
          clients.submit(
              () -> {
                go.await();
                return send(c);
              }));
    }
    go.countDown();
    return futures;
  }

  private List<Result> sendAll(List<Call> calls) throws Exception {
    List<Result> results = new ArrayList<>();
    for (Future<Result> f : submitAll(calls)) {
      results.add(f.get(180, TimeUnit.SECONDS));
    }
    return results;
  }

  /** A chat as a server shows it: its counter and its whole history. */
  record StoredChat(String id, int interactions, List<JsonNode> messages) {
    List<String> userTexts() {
      return messages.stream()
          .filter(m -> m.path("role").asText().equals("user"))
          .map(m -> m.path("content").asText())
          .toList();
    }

    List<String> replyIds() {
      return messages.stream()
          .filter(m -> m.path("role").asText().equals("assistant"))
          .map(m -> m.path("id").asText())
          .toList();
    }

    /** The history is user, its reply, user, its reply…: nothing half-stored, nothing between. */
    void assertWholePairs() {
      assertThat(messages.size() % 2).as("chat " + id + " has an even number of messages").isZero();
      for (int i = 0; i < messages.size(); i += 2) {
        JsonNode user = messages.get(i);
        JsonNode reply = messages.get(i + 1);
        assertThat(user.path("role").asText()).as("chat " + id + " message " + i).isEqualTo("user");
        assertThat(user.path("id").asText()).isEqualTo(user.path("content").asText());
        assertThat(reply.path("role").asText()).isEqualTo("assistant");
        assertThat(reply.path("content").asText())
            .as("chat " + id + " message " + (i + 1))
            .isEqualTo("echo: " + user.path("content").asText());
      }
    }
  }

  private StoredChat read(ServerProcess from, String chat) throws Exception {
    JsonNode show = get(from, "/v1/chats/" + chat);
    JsonNode page = get(from, "/v1/chats/" + chat + "/messages?limit=1000");
    assertThat(page.path("next_offset").isNull()).isTrue();
    List<JsonNode> messages = new ArrayList<>();
    page.path("messages").forEach(messages::add);
    assertThat(show.path("message_count").asInt()).isEqualTo(messages.size());
    return new StoredChat(chat, show.path("interactions").asInt(), messages);
  }

  private JsonNode get(ServerProcess from, String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(from.baseUrl + path))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private String logs() {
    return "\n--- a:\n" + tail(a.log()) + "\n--- b:\n" + tail(b.log());
  }

  private static String tail(String s) {
    return s.length() <= 4000 ? s : "…" + s.substring(s.length() - 4000);
  }

  private static boolean await(CountDownLatch latch) {
    try {
      return latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
