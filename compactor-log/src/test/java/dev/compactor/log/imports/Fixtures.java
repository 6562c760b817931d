package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/** Small transcript files the tests generate themselves. */
final class Fixtures {
  static final ObjectMapper JSON = new ObjectMapper();

  private Fixtures() {}

  /** An ordered map from alternating keys and values. */
  static Map<String, Object> obj(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ObjectNode tree(Object value) {
    return JSON.valueToTree(value);
  }

  /** One JSON value per line. */
  static String jsonl(List<?> values) {
    StringBuilder sb = new StringBuilder();
    for (Object v : values) {
      sb.append(json(v)).append('\n');
    }
    return sb.toString();
  }

  static Path write(Path dir, String name, String content) throws IOException {
    return Files.write(dir.resolve(name), content.getBytes(StandardCharsets.UTF_8));
  }

  static Path writeGzip(Path dir, String name, String content) throws IOException {
    return Files.write(dir.resolve(name), gzip(content));
  }

  static byte[] gzip(String content) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      gz.write(content.getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }

  static ImportSource source(String name, String content) {
    return ImportSource.of(name, content.getBytes(StandardCharsets.UTF_8));
  }
}
