package dev.compactor.cli.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import dev.compactor.core.CompactorException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The service's settings in the configuration files: {@code [server]} ({@code host}, {@code port},
 * {@code db}, {@code max_body_bytes}, {@code timeout}, {@code log_content}, {@code
 * proxy_retention}) and {@code [upstreams.NAME]} ({@code base_url}, {@code api_key_env}, and for
 * the proxy {@code budget}, {@code reminder}, {@code target}, {@code summary_model}, also per model
 * in {@code [upstreams.NAME.models."MODEL"]}). The project's file wins over the user's, key by key;
 * each value keeps where it came from, so an invalid one is reported naming the file and key.
 * Unknown keys in these tables are listed, as for the other tables.
 *
 * @param server the {@code [server]} values by key, with their sources
 * @param upstreams the upstreams by name: {@code base_url}, {@code api_key_env}, {@code budget},
 *     {@code reminder}, {@code summary_model} with sources
 * @param upstreamModels per upstream, per model: {@code budget}, {@code reminder}, {@code
 *     summary_model} with sources
 * @param unknownKeys unknown keys of {@code [server]} and {@code [upstreams.NAME]}, with path and
 *     file
 */
public record ServerConfig(
    Map<String, Value> server,
    Map<String, Map<String, Value>> upstreams,
    Map<String, Map<String, Map<String, Value>>> upstreamModels,
    List<String> unknownKeys) {

  /** A value as written (a string, number or boolean as TOML text) and where it came from. */
  public record Value(String text, JsonNode node, String source) {}

  private static final TomlMapper TOML = new TomlMapper();
  private static final Set<String> SERVER_KEYS =
      Set.of("host", "port", "db", "max_body_bytes", "timeout", "log_content", "proxy_retention");
  private static final Set<String> MODEL_KEYS =
      Set.of("budget", "reminder", "target", "summary_model");
  private static final Set<String> UPSTREAM_KEYS =
      Set.of("base_url", "api_key_env", "budget", "reminder", "target", "summary_model");

  public ServerConfig {
    server = Map.copyOf(server);
    upstreams = Map.copyOf(upstreams);
    upstreamModels = Map.copyOf(upstreamModels);
    unknownKeys = List.copyOf(unknownKeys);
  }

  /**
   * Reads {@code [server]} and {@code [upstreams]} of the files that exist.
   *
   * @throws CompactorException naming the file when one cannot be read, is not TOML, or holds a
   *     table where a value belongs (or the reverse)
   */
  public static ServerConfig load(ConfigLocations locations) {
    Map<String, Value> server = new LinkedHashMap<>();
    Map<String, Map<String, Value>> upstreams = new LinkedHashMap<>();
    Map<String, Map<String, Map<String, Value>>> models = new LinkedHashMap<>();
    List<String> unknown = new ArrayList<>();
    // the user's file first, then the project's over it
    for (Path p : List.of(locations.userFile(), locations.projectFile())) {
      read(p, locations.display(p))
          .ifPresent(root -> merge(root, locations.display(p), server, upstreams, models, unknown));
    }
    return new ServerConfig(server, upstreams, models, unknown);
  }

  private static Optional<JsonNode> read(Path path, String display) {
    if (!Files.exists(path)) {
      return Optional.empty();
    }
    try {
      JsonNode root = TOML.readTree(Files.readString(path));
      return Optional.ofNullable(root);
    } catch (JacksonException e) {
      throw new CompactorException("invalid TOML in " + display + ": " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new CompactorException("cannot read " + display + ": " + e.getMessage(), e);
    }
  }

  private static void merge(
      JsonNode root,
      String display,
      Map<String, Value> server,
      Map<String, Map<String, Value>> upstreams,
      Map<String, Map<String, Map<String, Value>>> models,
      List<String> unknown) {
    JsonNode s = root.get("server");
    if (s != null) {
      if (!s.isObject()) {
        throw new CompactorException("[server] in " + display + " must be a table");
      }
      for (Map.Entry<String, JsonNode> e : s.properties()) {
        if (!SERVER_KEYS.contains(e.getKey())) {
          unknown.add("[server] " + e.getKey() + " in " + display);
          continue;
        }
        server.put(e.getKey(), value(e.getValue(), "[server] " + e.getKey() + " in " + display));
      }
    }
    JsonNode u = root.get("upstreams");
    if (u != null) {
      if (!u.isObject()) {
        throw new CompactorException("[upstreams] in " + display + " must hold tables");
      }
      for (Map.Entry<String, JsonNode> e : u.properties()) {
        String label = "[upstreams." + e.getKey() + "]";
        if (!e.getValue().isObject()) {
          throw new CompactorException(label + " in " + display + " must be a table");
        }
        Map<String, Value> up = upstreams.computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>());
        for (Map.Entry<String, JsonNode> k : e.getValue().properties()) {
          if (k.getKey().equals("models")) {
            mergeModels(k.getValue(), label, display, e.getKey(), models, unknown);
            continue;
          }
          if (!UPSTREAM_KEYS.contains(k.getKey())) {
            unknown.add(label + " " + k.getKey() + " in " + display);
            continue;
          }
          up.put(k.getKey(), value(k.getValue(), label + " " + k.getKey() + " in " + display));
        }
      }
    }
  }

  private static void mergeModels(
      JsonNode tables,
      String upstreamLabel,
      String display,
      String upstream,
      Map<String, Map<String, Map<String, Value>>> models,
      List<String> unknown) {
    String label = upstreamLabel.substring(0, upstreamLabel.length() - 1) + ".models]";
    if (!tables.isObject()) {
      throw new CompactorException(label + " in " + display + " must hold tables");
    }
    for (Map.Entry<String, JsonNode> m : tables.properties()) {
      String ml =
          upstreamLabel.substring(0, upstreamLabel.length() - 1)
              + ".models.\""
              + m.getKey()
              + "\"]";
      if (!m.getValue().isObject()) {
        throw new CompactorException(ml + " in " + display + " must be a table");
      }
      Map<String, Value> values =
          models
              .computeIfAbsent(upstream, k -> new LinkedHashMap<>())
              .computeIfAbsent(m.getKey(), k -> new LinkedHashMap<>());
      for (Map.Entry<String, JsonNode> k : m.getValue().properties()) {
        if (!MODEL_KEYS.contains(k.getKey())) {
          unknown.add(ml + " " + k.getKey() + " in " + display);
          continue;
        }
        values.put(k.getKey(), value(k.getValue(), ml + " " + k.getKey() + " in " + display));
      }
    }
  }

  private static Value value(JsonNode node, String source) {
    if (node.isObject() || node.isArray()) {
      throw new CompactorException(source + " must be a single value, not " + node);
    }
    return new Value(node.asText(), node, source);
  }
}
