package dev.compactor.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.ChatTaskRequest;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatStores;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.RetryPolicy;
import dev.compactor.server.CompactorServer;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.Upstream;
import dev.compactor.server.UpstreamModels;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.Reply;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HTTP layer's cost under load: N concurrent clients make chat-task calls against the fake
 * model server on 127.0.0.1, once as direct library calls ({@link ChatTaskService#call}) and once
 * as the same calls through HTTP ({@code POST /v1/chats/{chat_id}/calls} on a {@link
 * CompactorServer} on 127.0.0.1 over the same service, store and model server), side by side in one
 * run: the two modes alternate in rounds (library, HTTP, HTTP, library, …) so that a busy machine
 * weighs on both alike. It prints calls per second and p50/p90/p99 latency of each mode and what
 * HTTP adds, against the aims (p50 added ≤ 2 ms, p99 added ≤ 10 ms, HTTP throughput ≥ 90 % of the
 * library's). Not a JMH benchmark: latency percentiles over concurrent clients are its point.
 *
 * <p>Workload: each client calls its own chats one call after the other; a call appends one user
 * message (about 60 characters) and goes to the model, which answers at once (or after {@code
 * --model-delay}); every {@code --chat-calls} calls a client moves to a new chat, so histories stay
 * between 0 and 2 × that many messages. No compaction settings. The HTTP client is the JDK's
 * ({@code java.net.http}, HTTP/1.1, keep-alive), or with {@code --client urlconnection} {@link
 * HttpURLConnection}; its cost counts as HTTP's. The server writes its request log (one JSON line
 * per request, as {@code compactor serve} does) to a temporary file. Each mode's CPU time per call
 * is the whole process's (client, server, store, model server) over its rounds.
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -cp compactor-bench/target/benchmarks.jar dev.compactor.bench.ServerLoadBenchmark
 *     [--clients 8] [--seconds 10] [--rounds 3] [--warmup 10] [--chat-calls 20]
 *     [--model-delay 0] [--db sqlite:FILE | postgresql://…] [--client jdk | urlconnection]
 * </pre>
 *
 * {@code --db}: the store (default: a SQLite file in a temporary directory, deleted afterwards); a
 * PostgreSQL URL ({@code postgresql://postgres@127.0.0.1/test?currentSchema=bench}) is used as it
 * is, the chats left in it under fresh ids. Figures and how to read them: {@code docs/server.md},
 * "Load: the HTTP layer against library calls".
 */
public final class ServerLoadBenchmark {
  private ServerLoadBenchmark() {}

  static final String MODEL = "fake/echo";
  static final String KEY_ENV = "BENCH_UPSTREAM_KEY";

  /** One mode's measurements (the CPU time is the whole process's: client, server, store). */
  static final class Sample extends CallSample {
    Sample(String mode) {
      super(mode);
    }
  }

  /**
   * One way of making a call: {@link #prepare} (not timed) turns the request body into what {@link
   * #call} (timed) takes.
   */
  interface Caller {
    Object prepare(String body);

    void call(String chat, Object prepared) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    int clients = 8;
    int seconds = 10;
    int rounds = 3;
    int warmup = 10;
    int chatCalls = 20;
    int modelDelay = 0;
    String db = null;
    String client = "jdk";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--clients" -> clients = BenchSupport.positive(args, ++i);
        case "--seconds" -> seconds = BenchSupport.positive(args, ++i);
        case "--rounds" -> rounds = BenchSupport.positive(args, ++i);
        case "--warmup" -> warmup = BenchSupport.positive(args, ++i);
        case "--chat-calls" -> chatCalls = BenchSupport.positive(args, ++i);
        case "--model-delay" -> modelDelay = Integer.parseInt(BenchSupport.value(args, ++i));
        case "--db" -> db = BenchSupport.value(args, ++i);
        case "--client" ->
            client =
                BenchSupport.oneOf(
                    args,
                    ++i,
                    "jdk (java.net.http) or urlconnection (HttpURLConnection)",
                    "jdk",
                    "urlconnection");
        case "-h", "--help" -> {
          System.out.println(
              "usage: ServerLoadBenchmark [--clients N] [--seconds S] [--rounds R] [--warmup S]"
                  + " [--chat-calls N] [--model-delay MS] [--db sqlite:FILE|postgresql://…]"
                  + " [--client jdk|urlconnection]");
          return;
        }
        default ->
            throw new IllegalArgumentException("unknown argument \"" + args[i] + "\" (see --help)");
      }
    }
    if (modelDelay < 0) {
      throw new IllegalArgumentException("--model-delay must be 0 or more, got " + modelDelay);
    }
    if (client.equals("urlconnection") && System.getProperty("http.maxConnections") == null) {
      // keep one connection per client alive (the JDK keeps 5 by default)
      System.setProperty("http.maxConnections", String.valueOf(Math.max(5, clients)));
    }
    Path tmp = Files.createTempDirectory("compactor-server-bench");
    String where = db != null ? db : "sqlite:" + tmp.resolve("chats.db");
    Path logFile = tmp.resolve("requests.log");
    Duration delay = Duration.ofMillis(modelDelay);
    try (FakeModelServer model =
            FakeModelServer.builder()
                .replyWith(r -> Reply.text("echo: " + r.lastUserText()).usage(200, 12).delay(delay))
                .start();
        ChatStore store = ChatStores.open(where);
        PrintStream log = BenchSupport.requestLog(logFile)) {
      ServerSettings settings =
          BenchSupport.settings(new Upstream("fake", model.baseUrl(), KEY_ENV));
      ChatModelOptions options =
          ChatModelOptions.builder()
              .retryPolicy(RetryPolicy.none())
              .timeout(Duration.ofSeconds(30))
              .build();
      ChatTaskService service =
          ChatTaskService.builder(store)
              .models(
                  new UpstreamModels(settings.upstreams(), options, Map.of(KEY_ENV, "sk-bench")))
              .build();
      try (CompactorServer server =
          CompactorServer.start(settings, service, Tenants.localMode(), log)) {
        HttpClient http = BenchSupport.http1Client();
        String base = server.baseUrl() + "/v1/chats/";
        // The library is called with a built request (a library caller has no JSON to parse);
        // over HTTP, parsing the request and writing the result are part of what HTTP adds.
        Caller library =
            new Caller() {
              @Override
              public Object prepare(String body) {
                return ChatTaskJson.parseRequest(body);
              }

              @Override
              public void call(String chat, Object request) {
                service.call(ChatKey.of(chat), (ChatTaskRequest) request);
              }
            };
        Caller jdkClient =
            new Caller() {
              @Override
              public Object prepare(String body) {
                return body;
              }

              @Override
              public void call(String chat, Object body) throws Exception {
                HttpResponse<String> r =
                    http.send(
                        HttpRequest.newBuilder(URI.create(base + chat + "/calls"))
                            .timeout(Duration.ofSeconds(60))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString((String) body))
                            .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                  throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
                }
              }
            };
        Caller urlConnection =
            new Caller() {
              @Override
              public Object prepare(String body) {
                return body.getBytes(StandardCharsets.UTF_8);
              }

              @Override
              public void call(String chat, Object body) throws Exception {
                byte[] bytes = (byte[]) body;
                HttpURLConnection c =
                    (HttpURLConnection) URI.create(base + chat + "/calls").toURL().openConnection();
                c.setRequestMethod("POST");
                c.setDoOutput(true);
                c.setConnectTimeout(10_000);
                c.setReadTimeout(60_000);
                c.setRequestProperty("Content-Type", "application/json");
                c.setFixedLengthStreamingMode(bytes.length);
                try (OutputStream out = c.getOutputStream()) {
                  out.write(bytes);
                }
                int status = c.getResponseCode();
                try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                  String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                  if (status != 200) {
                    throw new IllegalStateException("HTTP " + status + ": " + answer);
                  }
                }
              }
            };
        Caller overHttp = client.equals("jdk") ? jdkClient : urlConnection;
        String run = UUID.randomUUID().toString().substring(0, 8);
        System.out.printf(
            Locale.ROOT,
            "server load: %d clients, %d × %d s rounds per mode after %d s warm-up each, new chat"
                + " every %d calls, model delay %d ms, store %s, HTTP client %s, %d CPUs%n",
            clients,
            rounds,
            seconds,
            warmup,
            chatCalls,
            modelDelay,
            store.describe(),
            client,
            Runtime.getRuntime().availableProcessors());
        Sample lib = new Sample("library");
        Sample web = new Sample("HTTP");
        round(library, run + "-wl", clients, warmup, chatCalls, new Sample("warm-up"));
        round(overHttp, run + "-wh", clients, warmup, chatCalls, new Sample("warm-up"));
        for (int r = 0; r < rounds; r++) {
          boolean libraryFirst = r % 2 == 0;
          for (int k = 0; k < 2; k++) {
            boolean isLibrary = (k == 0) == libraryFirst;
            round(
                isLibrary ? library : overHttp,
                run + "-" + r + (isLibrary ? "l" : "h"),
                clients,
                seconds,
                chatCalls,
                isLibrary ? lib : web);
          }
        }
        System.out.println();
        System.out.println(table(lib, web));
        System.out.printf(
            "(JVM %s, %s; request log %s)%n",
            System.getProperty("java.version"),
            ManagementFactory.getRuntimeMXBean().getVmName(),
            logFile);
      }
    } finally {
      if (db == null) {
        try (var files = Files.walk(tmp)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** A call's request body: one user message, to the fake model. */
  static String body(String text) {
    ObjectNode o = ChatTaskJson.JSON.createObjectNode();
    o.put("model", MODEL);
    o.putArray("messages").addObject().put("role", "user").put("content", text);
    return o.toString();
  }

  /** {@code clients} threads calling for {@code seconds}; their latencies go into {@code into}. */
  static void round(Caller caller, String run, int clients, int seconds, int chatCalls, Sample into)
      throws InterruptedException {
    CountDownLatch go = new CountDownLatch(1);
    long[][] latencies = new long[clients][];
    long[] failures = new long[clients];
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    long[] window = new long[2];
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      Thread t =
          new Thread(
              () -> {
                long[] mine = new long[1024];
                int n = 0;
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                long end = window[1];
                for (int i = 0; System.nanoTime() < end; i++) {
                  String chat = run + "-c" + client + "-" + (i / chatCalls);
                  String text =
                      "message "
                          + i
                          + " of client "
                          + client
                          + ": please answer briefly, this is a load test";
                  Object prepared = caller.prepare(body(text));
                  long t0 = System.nanoTime();
                  try {
                    caller.call(chat, prepared);
                  } catch (Exception e) {
                    failures[client]++;
                    firstFailure.compareAndSet(null, e);
                    continue;
                  }
                  if (n == mine.length) {
                    mine = Arrays.copyOf(mine, n * 2);
                  }
                  mine[n++] = System.nanoTime() - t0;
                }
                latencies[client] = Arrays.copyOf(mine, n);
              },
              "bench-client-" + c);
      threads.add(t);
      t.start();
    }
    long cpu0 = BenchSupport.processCpuNanos();
    window[0] = System.nanoTime();
    window[1] = window[0] + seconds * 1_000_000_000L;
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    long wall = System.nanoTime() - window[0];
    long cpu = BenchSupport.processCpuNanos() - cpu0;
    int total = 0;
    for (long[] l : latencies) {
      total += l == null ? 0 : l.length;
    }
    long[] all = new long[total];
    int at = 0;
    long failed = 0;
    for (int c = 0; c < clients; c++) {
      if (latencies[c] != null) {
        System.arraycopy(latencies[c], 0, all, at, latencies[c].length);
        at += latencies[c].length;
      }
      failed += failures[c];
    }
    into.add(all, wall, cpu, failed);
    Sample one = new Sample(into.mode);
    one.add(all, wall, cpu, failed);
    System.out.printf(
        Locale.ROOT,
        "  %-8s %6d calls  %8.1f calls/s  p50 %6.2f ms  p99 %6.2f ms  CPU %5.2f ms/call%s%n",
        into.mode,
        all.length,
        one.perSecond(),
        one.ms(50),
        one.ms(99),
        one.cpuMsPerCall(),
        failed == 0 ? "" : "  " + failed + " FAILED, first: " + firstFailure.get());
  }

  /** The two modes and what HTTP adds, as a Markdown table, with the aims. */
  static String table(Sample lib, Sample web) {
    return CallSample.tableHead()
        + lib.tableRow()
        + web.tableRow()
        + CallSample.addedRow("added by HTTP", "the library's", lib, web);
  }
}
