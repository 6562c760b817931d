package dev.compactor.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatStores;
import dev.compactor.server.CompactorServer;
import dev.compactor.server.ServerMetrics;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.Upstream;
import dev.compactor.server.proxy.ProxyRoutes;
import dev.compactor.server.proxy.ProxyStore;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The compacting proxy's overhead: N concurrent clients continue long Chat Completions
 * conversations, once straight to the model server ("direct") and once through the proxy of a
 * {@link CompactorServer} on 127.0.0.1 (SQLite store, its {@code openai} upstream pointing at that
 * same model server), side by side in one run: the two modes alternate in rounds (direct, proxy,
 * proxy, direct, …) so that a busy machine weighs on both alike. It prints, per mode, calls per
 * second, p50/p90/p99 latency of a whole call, p50/p99 time to the first byte of the answer's body,
 * and the process's CPU time per call; then what the proxy adds, against the aims of #13 (p50 added
 * ≤ 2 ms, p99 added ≤ 10 ms, throughput ≥ 90 % of direct at 32 streams, time to first byte of a
 * streamed answer within 1 ms of direct), pooled over the rounds and as the median of the
 * round-pairs. Not a JMH benchmark: latency percentiles over concurrent clients are its point.
 *
 * <p>Workload: each client, each round, opens {@code --conversations} conversations of {@code
 * --messages} items and about {@code --tokens} tokens (o200k_base): a system prompt, a task, then
 * assistant tool calls and their tool results (pseudo-random English words, different in every
 * conversation). It first sends each conversation without its last two items (not timed, in both
 * modes: through the proxy that stores the conversation), then {@code --turns} timed turns, each
 * the conversation so far plus the echo of the model's last reply and a new user message (about 60
 * characters): turn 1 sends {@code --messages} items, turn 2 two more, and so on. Below the budget
 * ({@code X-Compactor-Budget: 400000} for a model with a 1M-token window, so that neither the
 * budget nor the cost planner's early masking, which may start at 25 % of the budget, compacts any
 * request), so this is the proxy's common path: parse, digest the items, find the stored
 * conversation, count its tokens, forward the client's bytes unchanged, relay the answer, append
 * the new items to the master log. Every proxied answer is checked: {@code x-compactor-action:
 * none} and the conversation id of its seed request (a turn that started a new conversation or
 * compacted counts as failed).
 *
 * <p>Upstream ({@code --upstream}): {@code fake}, the testkit's {@link FakeModelServer} (parses and
 * validates every request as the providers do: that costs this machine's CPU in both modes); or
 * {@code minimal}, a tiny HTTP server that reads the body without parsing it and answers a fixed
 * Chat Completions reply, closer to a remote provider, whose work is done elsewhere. {@code
 * --model-delay MS} delays each answer (a provider's time to answer); with {@code --stream} the
 * requests ask for an event stream and the delay falls before the first event.
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -cp compactor-bench/target/benchmarks.jar dev.compactor.bench.ProxyOverheadBenchmark
 *     [--clients 32] [--rounds 3] [--warmup-rounds 1] [--turns 8] [--conversations 1]
 *     [--messages 200] [--tokens 60000] [--stream] [--upstream fake | minimal]
 *     [--model-delay 0] [--model gpt-4.1] [--via proxy | relay]
 * </pre>
 *
 * <p>{@code --via relay} puts a byte relay ({@link TcpRelay}) where the proxy was: it copies each
 * connection's bytes to the upstream and back without reading them, the floor of what any second
 * hop costs on this machine.
 *
 * <p>Figures and how to read them: {@code docs/proxy.md}, "Overhead".
 */
public final class ProxyOverheadBenchmark {
  private ProxyOverheadBenchmark() {}

  static final ObjectMapper JSON = new ObjectMapper();
  private static final ThreadGroupsCpu THREADS = new ThreadGroupsCpu();
  static final String BUDGET = "400000";

  /** Settings of one run. */
  record Options(
      int clients,
      int rounds,
      int warmupRounds,
      int turns,
      int conversations,
      int messages,
      int tokens,
      boolean stream,
      String upstream,
      int modelDelay,
      String model,
      boolean relay) {}

  /** One mode's measurements, with each call's time to the first byte of its answer's body. */
  static final class Sample extends CallSample {
    long[] firstByte = new long[0];
    long jitMillis; // the JIT compilers' time meanwhile, part of cpuNanos
    final Map<String, Long> groupTicks = new java.util.HashMap<>(); // ThreadGroupsCpu, summed

    Sample(String mode) {
      super(mode);
    }

    void add(Sample other) {
      add(other.nanos, other.wallNanos, other.cpuNanos, other.errors);
      firstByte = concat(firstByte, other.firstByte);
      jitMillis += other.jitMillis;
      other.groupTicks.forEach((g, t) -> groupTicks.merge(g, t, Long::sum));
    }

    double jitMsPerCall() {
      return (double) jitMillis / Math.max(1, nanos.length);
    }

    double ttfbMs(double p) {
      return percentileMs(firstByte, p);
    }
  }

  public static void main(String[] args) throws Exception {
    Options o = parse(args);
    if (o == null) {
      return;
    }
    Path tmp = Files.createTempDirectory("compactor-proxy-bench");
    Path logFile = tmp.resolve("requests.log");
    Duration delay = Duration.ofMillis(o.modelDelay());
    AtomicLong replies = new AtomicLong();
    FakeModelServer fake = null;
    MinimalUpstream minimal = null;
    TcpRelay relay = null;
    String upstreamUrl;
    if (o.upstream().equals("fake")) {
      fake =
          FakeModelServer.builder()
              .replyWith(
                  r ->
                      Reply.text("Understood, step " + replies.incrementAndGet() + ".")
                          .usage(60_000, 6)
                          .delay(delay))
              .start();
      upstreamUrl = fake.baseUrl();
    } else {
      minimal = new MinimalUpstream(o.modelDelay());
      upstreamUrl = minimal.baseUrl();
    }
    if (o.relay()) {
      relay = new TcpRelay(upstreamUrl);
    }
    try (ChatStore chats = ChatStores.open("sqlite:" + tmp.resolve("chats.db"));
        ProxyStore proxyStore = ProxyStore.openSqlite(tmp.resolve("chats.db"));
        PrintStream log = BenchSupport.requestLog(logFile)) {
      ServerSettings settings = BenchSupport.settings(new Upstream("openai", upstreamUrl, null));
      try (CompactorServer server =
          CompactorServer.start(
              settings,
              ChatTaskService.builder(chats).build(),
              Tenants.localMode(),
              log,
              new ServerMetrics(),
              proxyStore,
              Map.of())) {
        HttpClient http = BenchSupport.http1Client();
        String direct = upstreamUrl + "/chat/completions";
        String proxied =
            relay == null
                ? server.baseUrl() + "/v1/chat/completions"
                : relay.baseUrl(upstreamUrl) + "/chat/completions";
        String second = relay == null ? "proxy" : "relay";
        List<String> probe = conversation(o, 0);
        System.out.printf(
            Locale.ROOT,
            "proxy overhead: %d clients, %d rounds per mode after %d warm-up round(s), %d"
                + " conversation(s) × %d turns per client per round, %d items (%,d characters"
                + " of JSON) per conversation, %s, upstream %s, model delay %d ms, model %s,"
                + " store %s, %d CPUs, load average %.2f%s%n",
            o.clients(),
            o.rounds(),
            o.warmupRounds(),
            o.conversations(),
            o.turns(),
            o.messages(),
            String.join(",", probe).length(),
            o.stream() ? "streamed" : "not streamed",
            o.upstream(),
            o.modelDelay(),
            o.model(),
            proxyStore.describe(),
            Runtime.getRuntime().availableProcessors(),
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
            relay == null
                ? ""
                : "; the second mode is a byte relay (TcpRelay), not the proxy: the floor of a"
                    + " second hop, and the rows below that say \"proxy\" are the relay's");
        Sample directAll = new Sample("direct");
        Sample proxyAll = new Sample(second);
        List<double[]> pairs = new ArrayList<>(); // per round: p50, p99, share, ttfb p50 deltas
        AtomicLong seeds = new AtomicLong();
        for (int r = -o.warmupRounds(); r < o.rounds(); r++) {
          boolean directFirst = Math.floorMod(r, 2) == 0;
          Sample d = null;
          Sample p = null;
          for (int k = 0; k < 2; k++) {
            boolean isDirect = (k == 0) == directFirst;
            System.gc();
            Sample s =
                round(
                    http,
                    isDirect ? direct : proxied,
                    !isDirect && relay == null,
                    o,
                    seeds,
                    r < 0
                        ? (isDirect ? "warm-up direct" : "warm-up " + second)
                        : isDirect ? "direct" : second);
            if (fake != null) {
              fake.reset(); // it keeps every request it received
            }
            if (isDirect) {
              d = s;
            } else {
              p = s;
            }
          }
          if (r >= 0) {
            directAll.add(d);
            proxyAll.add(p);
            pairs.add(
                new double[] {
                  p.ms(50) - d.ms(50),
                  p.ms(99) - d.ms(99),
                  100 * p.perSecond() / d.perSecond(),
                  p.ttfbMs(50) - d.ttfbMs(50)
                });
          }
        }
        System.out.println();
        System.out.println("a first timed turn, as the proxy counted it: " + TOKENS.get());
        System.out.println(table(directAll, proxyAll, pairs));
        for (Sample s : List.of(directAll, proxyAll)) {
          StringBuilder line =
              new StringBuilder("CPU ms per call by thread group, " + s.mode + ":");
          ThreadGroupsCpu.perCall(Map.of(), s.groupTicks, s.nanos.length, 14)
              .forEach((g, ms) -> line.append(String.format(Locale.ROOT, " %s %.2f;", g, ms)));
          System.out.println(line);
        }
        log.flush();
        List<String> warnings =
            Files.readAllLines(logFile).stream().filter(l -> l.contains("\"proxy\":")).toList();
        if (!warnings.isEmpty()) {
          System.out.println(
              warnings.size() + " failures the proxy logged, the first: " + warnings.get(0));
        }
        System.out.printf(
            "(JVM %s, %s; load average at the end %.2f)%n",
            System.getProperty("java.version"),
            ManagementFactory.getRuntimeMXBean().getVmName(),
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      }
    } finally {
      if (fake != null) {
        fake.close();
      }
      if (minimal != null) {
        minimal.close();
      }
      if (relay != null) {
        relay.close();
      }
      try (var files = Files.walk(tmp)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  // ------------------------------------------------------------------ the workload

  private static final String[] WORDS =
      ("the of and to in is that for it as with was on be by this are at from or an which have not"
              + " file line test error value function return class method build output module"
              + " server request response token budget context message result check run step code"
              + " change update config path source index list map string number time state data"
              + " call tool read write open close start stop found missing failed passed expected"
              + " actual warning info debug trace java python maven gradle docker node package")
          .split(" ");

  /**
   * The stored part of conversation {@code seed} (Chat Completions messages as JSON text): a system
   * prompt, a task, then assistant tool calls and their results, {@code o.messages() - 2} items,
   * about {@code o.tokens()} tokens; the first turn adds the echo of the model's reply and a user
   * message.
   */
  static List<String> conversation(Options o, long seed) {
    Random rnd = new Random(seed * 7919 + 17);
    List<String> items = new ArrayList<>(o.messages());
    int pairs = Math.max(1, (o.messages() - 2) / 2);
    // about 1.2 words a token for these words with spaces and punctuation (o200k_base)
    int wordsPerResult = (int) Math.max(10, (o.tokens() - 700) / 1.0 / pairs / 1.17 - 30);
    ObjectNode sys = JSON.createObjectNode().put("role", "system");
    sys.put("content", "You are a coding agent (conversation " + seed + "). " + words(rnd, 300));
    items.add(sys.toString());
    ObjectNode task = JSON.createObjectNode().put("role", "user");
    task.put("content", "Fix the failing build of project " + seed + ": " + words(rnd, 60));
    items.add(task.toString());
    for (int i = 0; items.size() + 2 <= o.messages() - 2; i++) {
      String id = "call_" + seed + "_" + i;
      ObjectNode call = JSON.createObjectNode().put("role", "assistant");
      call.putNull("content");
      ObjectNode tc = call.putArray("tool_calls").addObject().put("id", id).put("type", "function");
      ObjectNode args = JSON.createObjectNode().put("cmd", "grep -rn " + words(rnd, 3) + " src/");
      tc.putObject("function").put("name", "bash").put("arguments", args.toString());
      items.add(call.toString());
      ObjectNode result = JSON.createObjectNode().put("role", "tool").put("tool_call_id", id);
      result.put("content", words(rnd, wordsPerResult));
      items.add(result.toString());
    }
    return items;
  }

  private static String words(Random rnd, int n) {
    StringBuilder sb = new StringBuilder(n * 6);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(i % 12 == 0 ? ".\n" : " ");
      }
      sb.append(WORDS[rnd.nextInt(WORDS.length)]);
      if (rnd.nextInt(9) == 0) {
        sb.append(rnd.nextInt(1000));
      }
    }
    return sb.toString();
  }

  private static String userMessage(long seed, int n) {
    return JSON.createObjectNode()
        .put("role", "user")
        .put("content", "Turn " + n + " of conversation " + seed + ": go on, and keep it short.")
        .toString();
  }

  private static String assistantMessage(String text) {
    return JSON.createObjectNode().put("role", "assistant").put("content", text).toString();
  }

  static String body(Options o, List<String> items) {
    StringBuilder sb = new StringBuilder(items.size() * 1500);
    sb.append("{\"model\":\"").append(o.model()).append("\",\"stream\":").append(o.stream());
    sb.append(",\"messages\":[");
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(items.get(i));
    }
    return sb.append("]}").toString();
  }

  /** What one call returned: the reply's text, the proxy's headers, the first-byte time. */
  record Call(
      String text, String action, String conversation, String tokensBefore, long firstByteNanos) {}

  /** Seed requests in flight at once. */
  static final Semaphore SEEDING = new Semaphore(2);

  /** What the proxy counted in a first timed turn (its {@code x-compactor-tokens-before}). */
  static final AtomicReference<String> TOKENS = new AtomicReference<>();

  static Call call(HttpClient http, String url, Options o, List<String> items) throws Exception {
    byte[] body = body(o, items).getBytes(StandardCharsets.UTF_8);
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(120))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer sk-bench")
            .header("X-Compactor-Budget", BUDGET)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    long t0 = System.nanoTime();
    HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    byte[] all;
    long first;
    try (InputStream in = r.body()) {
      int b = in.read();
      first = System.nanoTime() - t0;
      byte[] rest = in.readAllBytes();
      all = new byte[rest.length + (b < 0 ? 0 : 1)];
      if (b >= 0) {
        all[0] = (byte) b;
        System.arraycopy(rest, 0, all, 1, rest.length);
      }
    }
    String text = new String(all, StandardCharsets.UTF_8);
    if (r.statusCode() != 200) {
      throw new IllegalStateException("HTTP " + r.statusCode() + ": " + abbreviate(text));
    }
    String reply;
    if (o.stream()) {
      StringBuilder sb = new StringBuilder();
      for (String line : text.split("\n")) {
        if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
          JsonNode chunk = JSON.readTree(line.substring(6));
          sb.append(chunk.path("choices").path(0).path("delta").path("content").asText(""));
        }
      }
      reply = sb.toString();
    } else {
      reply = JSON.readTree(text).path("choices").path(0).path("message").path("content").asText();
    }
    return new Call(
        reply,
        r.headers().firstValue(ProxyRoutes.ACTION).orElse(null),
        r.headers().firstValue(ProxyRoutes.CONVERSATION).orElse(null),
        r.headers().firstValue(ProxyRoutes.TOKENS_BEFORE).orElse(null),
        first);
  }

  /**
   * One round of one mode: every client sends its conversations' seeds (not timed), then all start
   * at once and make their timed turns.
   */
  static Sample round(
      HttpClient http, String url, boolean proxy, Options o, AtomicLong seeds, String mode)
      throws InterruptedException {
    int clients = o.clients();
    int perClient = o.turns() * o.conversations();
    CountDownLatch seeded = new CountDownLatch(clients);
    CountDownLatch go = new CountDownLatch(1);
    long[][] latencies = new long[clients][];
    long[][] firstBytes = new long[clients][];
    long[] failures = new long[clients];
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    AtomicLong clientCpu = new AtomicLong(); // the client threads' own, once each ends
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      Thread t =
          new Thread(
              () -> {
                long[] mine = new long[perClient];
                long[] ttfb = new long[perClient];
                int n = 0;
                List<List<String>> convs = new ArrayList<>();
                List<String> ids = new ArrayList<>();
                try {
                  for (int k = 0; k < o.conversations(); k++) {
                    long number = seeds.incrementAndGet();
                    List<String> seed = conversation(o, number);
                    Call s;
                    SEEDING.acquire(); // a new conversation is counted from scratch: two at a time
                    try {
                      s = call(http, url, o, seed);
                    } finally {
                      SEEDING.release();
                    }
                    if (proxy && !"none".equals(s.action())) {
                      throw new IllegalStateException(
                          "the proxy compacted a seed conversation (x-compactor-action: "
                              + s.action()
                              + "): this run would not measure the uncompacted path");
                    }
                    seed.add(assistantMessage(s.text()));
                    seed.add(userMessage(number, seed.size()));
                    convs.add(seed);
                    ids.add(s.conversation());
                  }
                } catch (Exception e) {
                  failures[client] += perClient;
                  firstFailure.compareAndSet(null, e);
                  convs.clear();
                } finally {
                  seeded.countDown();
                }
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                long cpuAtGo = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                for (int k = 0; k < convs.size(); k++) {
                  List<String> items = convs.get(k);
                  for (int turn = 0; turn < o.turns(); turn++) {
                    long t0 = System.nanoTime();
                    try {
                      Call r = call(http, url, o, items);
                      long took = System.nanoTime() - t0;
                      if (proxy && !"none".equals(r.action())) {
                        throw new IllegalStateException(
                            "the proxy answered x-compactor-action: " + r.action());
                      }
                      if (proxy && !ids.get(k).equals(r.conversation())) {
                        throw new IllegalStateException(
                            "the turn did not continue its stored conversation "
                                + ids.get(k)
                                + " but "
                                + r.conversation());
                      }
                      mine[n] = took;
                      ttfb[n++] = r.firstByteNanos();
                      items.add(assistantMessage(r.text()));
                      items.add(userMessage(client, items.size()));
                      if (proxy && r.tokensBefore() != null) {
                        TOKENS.compareAndSet(
                            null, r.tokensBefore() + " tokens, " + (items.size() - 2) + " items");
                      }
                    } catch (Exception e) {
                      failures[client]++;
                      firstFailure.compareAndSet(null, e);
                      break;
                    }
                  }
                }
                latencies[client] = Arrays.copyOf(mine, n);
                firstBytes[client] = Arrays.copyOf(ttfb, n);
                clientCpu.addAndGet(
                    ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpuAtGo);
              },
              "bench-client-" + c);
      threads.add(t);
      t.start();
    }
    seeded.await();
    Map<String, Long> groups0 = THREADS.snapshot();
    long cpu0 = BenchSupport.processCpuNanos();
    long jit0 = jitMillis();
    long start = System.nanoTime();
    long startMillis = System.currentTimeMillis();
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    Sample s = new Sample(mode);
    s.wallNanos = System.nanoTime() - start;
    s.cpuNanos = BenchSupport.processCpuNanos() - cpu0;
    s.jitMillis = jitMillis() - jit0;
    THREADS.snapshot().forEach((g, t) -> s.groupTicks.put(g, t - groups0.getOrDefault(g, 0L)));
    s.groupTicks.put("bench-client-#", (clientCpu.get() + 5_000_000L) / 10_000_000L); // 10 ms ticks
    for (int c = 0; c < clients; c++) {
      if (latencies[c] != null) {
        s.nanos = CallSample.concat(s.nanos, latencies[c]);
        s.firstByte = CallSample.concat(s.firstByte, firstBytes[c]);
      }
      s.errors += failures[c];
    }
    System.out.printf(
        Locale.ROOT,
        "  %-14s %5d calls %7.1f calls/s  p50 %7.2f ms  p99 %7.2f ms  first byte p50 %7.2f ms"
            + "  CPU %5.2f ms/call  timed %d–%d (epoch ms, for a profile of these calls alone)%s%n",
        mode,
        s.nanos.length,
        s.perSecond(),
        s.ms(50),
        s.ms(99),
        s.ttfbMs(50),
        s.cpuMsPerCall(),
        startMillis,
        startMillis + s.wallNanos / 1_000_000,
        s.errors == 0 ? "" : "  " + s.errors + " FAILED, first: " + firstFailure.get());
    return s;
  }

  /** Both modes pooled, what the proxy adds (pooled, and the median of the round-pairs). */
  static String table(Sample direct, Sample proxy, List<double[]> pairs) {
    StringBuilder sb = new StringBuilder();
    sb.append(CallSample.tableHead("first byte p50 ms", "first byte p99 ms"));
    for (Sample s : List.of(direct, proxy)) {
      sb.append(s.tableRow(s.ttfbMs(50), s.ttfbMs(99)));
    }
    double ttfb = proxy.ttfbMs(50) - direct.ttfbMs(50);
    sb.append(
        CallSample.addedRow(
            "added by the proxy (pooled)",
            "direct",
            direct,
            proxy,
            String.format(Locale.ROOT, "%+.2f (aim ≤ 1: %s)", ttfb, CallSample.verdict(ttfb <= 1)),
            String.format(Locale.ROOT, "%+.2f", proxy.ttfbMs(99) - direct.ttfbMs(99))));
    sb.append(
        String.format(
            Locale.ROOT,
            "| added, median of %d round-pairs | | %.1f %% | %+.2f | | %+.2f | %+.2f | | | |%n",
            pairs.size(),
            median(pairs, 2),
            median(pairs, 0),
            median(pairs, 1),
            median(pairs, 3)));
    sb.append(
        String.format(
            Locale.ROOT,
            "%nOf the CPU per call, the JIT compilers' time while the calls ran: direct %.2f ms,"
                + " proxy %.2f ms (a JVM still compiling the proxy's path; more warm-up calls"
                + " lower it: the proxy's steps run once a call, so their final compilation"
                + " waits for some ten thousand calls, e.g. --turns 32 --warmup-rounds 400 with"
                + " one client).%n",
            direct.jitMsPerCall(),
            proxy.jitMsPerCall()));
    return sb.toString();
  }

  /** The JIT compilers' accumulated time so far, in ms, or 0 where the JVM does not say. */
  private static long jitMillis() {
    var jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit.getTotalCompilationTime()
        : 0;
  }

  private static double median(List<double[]> rows, int col) {
    double[] v = rows.stream().mapToDouble(r -> r[col]).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static String abbreviate(String s) {
    return s.length() > 300 ? s.substring(0, 300) + "…" : s;
  }

  // ------------------------------------------------------------------ a minimal upstream

  /**
   * An OpenAI-compatible upstream that costs next to nothing: it reads the request body without
   * parsing it and answers a fixed Chat Completions reply (an event stream when the body's start
   * says {@code "stream":true}), after {@code delayMs}.
   */
  static final class MinimalUpstream implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;
    private final int delayMs;
    private final AtomicLong ids = new AtomicLong();

    MinimalUpstream(int delayMs) throws IOException {
      if (System.getProperty("sun.net.httpserver.nodelay") == null) {
        System.setProperty("sun.net.httpserver.nodelay", "true");
      }
      this.delayMs = delayMs;
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      executor = Executors.newCachedThreadPool();
      server.setExecutor(executor);
      server.createContext("/", this::handle);
      server.start();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    private void handle(HttpExchange ex) throws IOException {
      try (ex) {
        byte[] body = ex.getRequestBody().readAllBytes();
        String head = new String(body, 0, Math.min(body.length, 200), StandardCharsets.UTF_8);
        boolean stream = head.contains("\"stream\":true");
        long id = ids.incrementAndGet();
        String text = "Understood, step " + id + ".";
        if (delayMs > 0) {
          try {
            Thread.sleep(delayMs);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        String base =
            "{\"id\":\"chatcmpl-" + id + "\",\"created\":1767225600,\"model\":\"gpt-4o\",";
        if (!stream) {
          byte[] out =
              (base
                      + "\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
                      + "{\"role\":\"assistant\",\"content\":\""
                      + text
                      + "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":60000,"
                      + "\"completion_tokens\":6,\"total_tokens\":60006}}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, out.length);
          try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
          }
          return;
        }
        String chunk = base + "\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,";
        List<String> events =
            List.of(
                chunk
                    + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}",
                chunk + "\"delta\":{\"content\":\"" + text + "\"},\"finish_reason\":null}]}",
                chunk + "\"delta\":{},\"finish_reason\":\"stop\"}]}",
                "[DONE]");
        ex.getResponseHeaders().add("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        try (OutputStream os = ex.getResponseBody()) {
          for (String e : events) {
            os.write(("data: " + e + "\n\n").getBytes(StandardCharsets.UTF_8));
            os.flush();
          }
        }
      }
    }

    @Override
    public void close() {
      server.stop(0);
      executor.shutdownNow();
    }
  }

  // ------------------------------------------------------------------ arguments

  static Options parse(String[] args) {
    int clients = 32;
    int rounds = 3;
    int warmupRounds = 1;
    int turns = 8;
    int conversations = 1;
    int messages = 200;
    int tokens = 60_000;
    boolean stream = false;
    String upstream = "fake";
    int modelDelay = 0;
    String model = "gpt-4.1";
    boolean relay = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--clients" -> clients = BenchSupport.positive(args, ++i);
        case "--rounds" -> rounds = BenchSupport.positive(args, ++i);
        case "--warmup-rounds" -> warmupRounds = Integer.parseInt(BenchSupport.value(args, ++i));
        case "--turns" -> turns = BenchSupport.positive(args, ++i);
        case "--conversations" -> conversations = BenchSupport.positive(args, ++i);
        case "--messages" -> messages = BenchSupport.positive(args, ++i);
        case "--tokens" -> tokens = BenchSupport.positive(args, ++i);
        case "--stream" -> stream = true;
        case "--upstream" ->
            upstream =
                BenchSupport.oneOf(
                    args,
                    ++i,
                    "fake (the testkit's FakeModelServer) or minimal",
                    "fake",
                    "minimal");
        case "--model-delay" -> modelDelay = Integer.parseInt(BenchSupport.value(args, ++i));
        case "--model" -> model = BenchSupport.value(args, ++i);
        case "--via" -> {
          String via =
              BenchSupport.oneOf(
                  args,
                  ++i,
                  "proxy (the compacting proxy) or relay (a byte relay)",
                  "proxy",
                  "relay");
          relay = via.equals("relay");
        }
        case "-h", "--help" -> {
          System.out.println(
              "usage: ProxyOverheadBenchmark [--clients N] [--rounds R] [--warmup-rounds R]"
                  + " [--turns N] [--conversations N] [--messages N] [--tokens N] [--stream]"
                  + " [--upstream fake|minimal] [--model-delay MS] [--model NAME]"
                  + " [--via proxy|relay]");
          return null;
        }
        default ->
            throw new IllegalArgumentException("unknown argument \"" + args[i] + "\" (see --help)");
      }
    }
    if (modelDelay < 0 || warmupRounds < 0) {
      throw new IllegalArgumentException("--model-delay and --warmup-rounds must be 0 or more");
    }
    if (messages < 4) {
      throw new IllegalArgumentException("--messages must be at least 4, got " + messages);
    }
    return new Options(
        clients,
        rounds,
        warmupRounds,
        turns,
        conversations,
        messages,
        tokens,
        stream,
        upstream,
        modelDelay,
        model,
        relay);
  }
}
