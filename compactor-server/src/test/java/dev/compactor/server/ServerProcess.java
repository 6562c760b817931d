package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.PostgresChatStore;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.RetryPolicy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link CompactorServer} in a JVM of its own over a PostgreSQL schema, as {@code compactor serve
 * --db postgresql://…} runs it: {@link #main} is the child process, {@link #start} launches one
 * from a test with the test's class path.
 *
 * <p>The child serves on a free port of 127.0.0.1 in single-tenant local mode, with its model calls
 * going to an OpenAI-compatible upstream named {@code fake} (models {@code fake/NAME}), prints
 * {@code listening PORT} on standard output once it serves, writes its request log to standard
 * error, and stops gracefully when its standard input ends (so it also stops when the test JVM
 * dies).
 */
final class ServerProcess implements AutoCloseable {
  /** The environment variable the child reads the upstream key from (set by {@link #main}). */
  static final String KEY_ENV = "FAKE_UPSTREAM_KEY";

  private static final String READY = "listening ";

  final String name;
  final Process process;
  final Path log;
  final String baseUrl;

  private ServerProcess(String name, Process process, Path log, int port) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.baseUrl = "http://127.0.0.1:" + port;
  }

  /**
   * The child: {@code ServerProcess JDBC_URL SCHEMA MODEL_BASE_URL}, the JDBC URL with its
   * credentials in it.
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      System.err.println("usage: ServerProcess JDBC_URL SCHEMA MODEL_BASE_URL");
      System.exit(2);
    }
    ChatStore store = PostgresChatStore.open(args[0], new Properties(), args[1]);
    ServerSettings settings =
        ServerSettings.builder()
            .port(0)
            .shutdownGrace(Duration.ofSeconds(5))
            .upstream(new Upstream("fake", args[2], KEY_ENV))
            .build();
    ChatModelOptions options =
        ChatModelOptions.builder()
            .retryPolicy(RetryPolicy.none())
            .timeout(Duration.ofSeconds(60))
            .build();
    ChatTaskService service =
        ChatTaskService.builder(store)
            .models(new UpstreamModels(settings.upstreams(), options, Map.of(KEY_ENV, "sk-fake")))
            .build();
    CompactorServer server =
        CompactorServer.start(
            settings,
            service,
            Tenants.localMode(),
            new PrintStream(System.err, true, StandardCharsets.UTF_8));
    System.out.println(READY + server.port());
    System.out.flush();
    InputStream in = System.in;
    while (in.read() >= 0) {
      // the parent closes our standard input to stop us
    }
    server.close();
    store.close();
  }

  /**
   * Starts a child serving the tables in {@code schema} and waits until it listens.
   *
   * @param name what the test calls it (its standard error goes to {@code
   *     target/server-processes/server-NAME-SCHEMA.log})
   * @param jdbcUrl the database, credentials included
   * @param modelBaseUrl the fake model server's base URL
   */
  static ServerProcess start(String name, String jdbcUrl, String schema, String modelBaseUrl) {
    return await(launch(name, jdbcUrl, schema, modelBaseUrl));
  }

  /** Launches a child without waiting; {@link #await} it. */
  static Launched launch(String name, String jdbcUrl, String schema, String modelBaseUrl) {
    try {
      Path dir = Files.createDirectories(Path.of("target", "server-processes"));
      Path log = dir.resolve("server-" + name + "-" + schema + ".log");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ProcessBuilder pb =
          new ProcessBuilder(
              List.of(
                  java,
                  "-Xmx256m",
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ServerProcess.class.getName(),
                  jdbcUrl,
                  schema,
                  modelBaseUrl));
      pb.redirectError(log.toFile());
      Process p = pb.start();
      return new Launched(name, p, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start server process " + name, e);
    }
  }

  /** A launched child, not yet known to listen. */
  record Launched(String name, Process process, Path log) {}

  /** Waits (up to 90 s: the machine may be busy) until the child prints its port. */
  static ServerProcess await(Launched l) {
    CompletableFuture<String> line =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(
                            l.process().getInputStream(), StandardCharsets.UTF_8));
                for (String s = r.readLine(); s != null; s = r.readLine()) {
                  if (s.startsWith(READY)) {
                    return s;
                  }
                }
                return null;
              } catch (IOException e) {
                return null;
              }
            });
    String s;
    try {
      s = line.get(90, TimeUnit.SECONDS);
    } catch (TimeoutException | InterruptedException | java.util.concurrent.ExecutionException e) {
      s = null;
    }
    if (s == null) {
      l.process().destroyForcibly();
      throw new IllegalStateException(
          "server process " + l.name() + " did not start; its log:\n" + readLog(l.log()));
    }
    return new ServerProcess(
        l.name(), l.process(), l.log(), Integer.parseInt(s.substring(READY.length()).strip()));
  }

  /** kill -9: the process dies at once, with whatever it was doing. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(name + " died").isTrue();
  }

  String log() {
    return readLog(log);
  }

  private static String readLog(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Stops the child gracefully (closes its standard input), forcibly after 15 s. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    try {
      process.getOutputStream().close();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
