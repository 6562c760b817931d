package dev.compactor.bench;

import dev.compactor.server.ServerSettings;
import dev.compactor.server.Upstream;
import java.io.BufferedOutputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the benchmarks' {@code main} methods share: reading flags and their values, and the pieces
 * of a server measured over HTTP (its settings, its request log, a client).
 */
final class BenchSupport {
  private BenchSupport() {}

  /** The value of the flag {@code args[i - 1]}: {@code args[i]}. */
  static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value");
    }
    return args[i];
  }

  /** The value of the flag {@code args[i - 1]} as a whole number of at least 1. */
  static int positive(String[] args, int i) {
    String v = value(args, i);
    try {
      int n = Integer.parseInt(v);
      if (n < 1) {
        throw new IllegalArgumentException(args[i - 1] + " must be at least 1, got " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          args[i - 1] + " takes a whole number, got \"" + v + "\"", e);
    }
  }

  /**
   * The value of the flag {@code args[i - 1]}, one of {@code allowed}; {@code choices} names them
   * for the error, e.g. {@code "jdk (java.net.http) or urlconnection (HttpURLConnection)"}.
   */
  static String oneOf(String[] args, int i, String choices, String... allowed) {
    String v = value(args, i);
    if (!List.of(allowed).contains(v)) {
      throw new IllegalArgumentException(args[i - 1] + " is " + choices + ", got \"" + v + "\"");
    }
    return v;
  }

  /** Settings of a server on a free port with one upstream. */
  static ServerSettings settings(Upstream upstream) {
    return ServerSettings.builder().port(0).upstream(upstream).build();
  }

  /** The server's request log: {@code file}, buffered, flushed at each line. */
  static PrintStream requestLog(Path file) throws FileNotFoundException {
    return new PrintStream(
        new BufferedOutputStream(new FileOutputStream(file.toFile())),
        true,
        StandardCharsets.UTF_8);
  }

  /** An HTTP/1.1 client, connecting within 10 s. */
  static HttpClient http1Client() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  /** CPU time this process has used so far (every thread), in nanoseconds. */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return 0;
  }
}
