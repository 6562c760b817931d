package dev.compactor.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The server's OpenAPI document, read from its resource, and what it says about each route. */
final class OpenApiDoc {
  static final Set<String> METHODS =
      Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

  final JsonNode root;

  private OpenApiDoc(JsonNode root) {
    this.root = root;
  }

  static OpenApiDoc load() {
    try (InputStream in =
        CompactorServer.class.getResourceAsStream(CompactorServer.OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("no resource " + CompactorServer.OPENAPI_RESOURCE);
      }
      return new OpenApiDoc(new ObjectMapper().readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every operation, keyed {@code "METHOD /path/{param}"}. */
  Map<String, JsonNode> operations() {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> paths = root.path("paths").fields();
    while (paths.hasNext()) {
      Map.Entry<String, JsonNode> p = paths.next();
      Iterator<Map.Entry<String, JsonNode>> ops = p.getValue().fields();
      while (ops.hasNext()) {
        Map.Entry<String, JsonNode> op = ops.next();
        if (METHODS.contains(op.getKey())) {
          out.put(op.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey(), op.getValue());
        }
      }
    }
    return out;
  }

  /** Every documented answer, as {@code "METHOD /path status"}. */
  Set<String> answers() {
    Set<String> out = new TreeSet<>();
    operations()
        .forEach(
            (route, op) ->
                op.path("responses").fieldNames().forEachRemaining(s -> out.add(route + " " + s)));
    return out;
  }

  /** The node a local {@code $ref} ({@code #/components/...}) points at, or null. */
  JsonNode resolve(String ref) {
    if (!ref.startsWith("#/")) {
      return null;
    }
    JsonNode n = root.at(ref.substring(1));
    return n.isMissingNode() ? null : n;
  }
}
