package dev.compactor.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Loads the benchmark workload {@code shared/corpus/synthetic/gptme-2000.conversation.jsonl.gz}
 * (generated; 2,000 messages, 7.29 M characters) with a minimal Jackson line reader: one {@code
 * {"role", "content", "timestamp"}} object per line; gptme's {@code system} role (tool output)
 * stays {@code system}. Until the real importer exists this is all the benchmarks need.
 */
public final class Corpus {
  /** System property naming the workload file. */
  public static final String PROPERTY = "compactor.bench.corpus";

  /** The default location, relative to the project's root (searched for upwards). */
  public static final String DEFAULT = "shared/corpus/synthetic/gptme-2000.conversation.jsonl.gz";

  private Corpus() {}

  /**
   * The workload's messages.
   *
   * @param path a file path, or empty for the {@value #PROPERTY} system property, else {@value
   *     #DEFAULT} found in the working directory or any directory above it
   * @throws IllegalStateException naming what was tried when the file is absent
   */
  public static List<Message> gptme2000(String path) {
    Path file = locate(path);
    List<Message> out = new ArrayList<>(2_000);
    ObjectMapper json = new ObjectMapper();
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode n = json.readTree(line);
        out.add(
            Message.builder(Role.parse(n.path("role").asText()))
                .content(n.path("content").asText())
                .build());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read benchmark corpus " + file, e);
    }
    return out;
  }

  static Path locate(String path) {
    String given = path != null && !path.isBlank() ? path : System.getProperty(PROPERTY);
    if (given != null && !given.isBlank()) {
      Path p = Path.of(given);
      if (!Files.isRegularFile(p)) {
        throw new IllegalStateException("benchmark corpus not found: " + p.toAbsolutePath());
      }
      return p;
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path p = dir.resolve(DEFAULT);
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    throw new IllegalStateException(
        "benchmark corpus "
            + DEFAULT
            + " not found in "
            + Path.of("").toAbsolutePath()
            + " or above; pass -p corpus=/path/to/gptme-2000.conversation.jsonl.gz or -D"
            + PROPERTY
            + "=...");
  }
}
