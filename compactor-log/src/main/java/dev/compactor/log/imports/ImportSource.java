package dev.compactor.log.imports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.wire.json.Json;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/**
 * The bytes an importer reads: a file or an in-memory buffer, gzip-decompressed transparently when
 * it starts with the gzip magic bytes (whatever its name). Each {@link #open()} starts again from
 * the beginning, so several importers can look at the same source; the source itself is only read.
 *
 * <p>The first lines and the whole-document JSON parse are cached, so detection by many importers
 * costs one read. Not thread-safe.
 */
public final class ImportSource {
  /** Bytes looked at by {@link #head()}. */
  public static final int HEAD_BYTES = 64 * 1024;

  private static final int GZIP_MAGIC_1 = 0x1f;
  private static final int GZIP_MAGIC_2 = 0x8b;

  private final String name;
  private final Path path;
  private final byte[] bytes;
  private final boolean gzipped;

  private byte[] head;
  private List<String> firstLines;
  private int firstLinesAsked;
  private boolean jsonParsed;
  private JsonNode json;
  private String jsonError;

  private ImportSource(String name, Path path, byte[] bytes, boolean gzipped) {
    this.name = name;
    this.path = path;
    this.bytes = bytes;
    this.gzipped = gzipped;
  }

  /**
   * A file source. Only its first two bytes are read here (to recognise gzip).
   *
   * @throws IOException when the file cannot be opened
   */
  public static ImportSource of(Path path) throws IOException {
    Objects.requireNonNull(path, "path");
    boolean gz;
    try (InputStream in = Files.newInputStream(path)) {
      gz = in.read() == GZIP_MAGIC_1 && in.read() == GZIP_MAGIC_2;
    }
    Path fileName = path.getFileName();
    return new ImportSource(
        fileName == null ? path.toString() : fileName.toString(), path, null, gz);
  }

  /**
   * An in-memory source, e.g. an upload. The array is not copied; do not change it afterwards.
   *
   * @param name shown in notes and errors, and used to name single conversations
   */
  public static ImportSource of(String name, byte[] content) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(content, "content");
    boolean gz =
        content.length >= 2
            && (content[0] & 0xff) == GZIP_MAGIC_1
            && (content[1] & 0xff) == GZIP_MAGIC_2;
    return new ImportSource(name, null, content, gz);
  }

  /** The source's name: the file name for files. */
  public String name() {
    return name;
  }

  /**
   * The name without directories, a {@code .gz} suffix and the usual transcript extensions ({@code
   * .jsonl}, {@code .json}, {@code .traj}, {@code .traj.json}): {@code session-1.jsonl.gz} gives
   * {@code session-1}.
   */
  public String baseName() {
    String n = name;
    String lower = n.toLowerCase(Locale.ROOT);
    for (String ext : List.of(".gz", ".jsonl", ".json", ".traj")) {
      if (lower.endsWith(ext) && lower.length() > ext.length()) {
        n = n.substring(0, n.length() - ext.length());
        lower = lower.substring(0, lower.length() - ext.length());
      }
    }
    return n;
  }

  /** The file, for file sources. */
  public Optional<Path> path() {
    return Optional.ofNullable(path);
  }

  /** Whether the content is gzip-compressed (recognised by its magic bytes). */
  public boolean gzipped() {
    return gzipped;
  }

  /**
   * A fresh stream over the (decompressed) content, from the beginning. The caller closes it.
   *
   * @throws IOException when the source cannot be opened or its gzip header is broken
   */
  public InputStream open() throws IOException {
    InputStream raw =
        path != null
            ? new BufferedInputStream(Files.newInputStream(path), 1 << 16)
            : new ByteArrayInputStream(bytes);
    if (!gzipped) {
      return raw;
    }
    try {
      return new BufferedInputStream(new GZIPInputStream(raw, 1 << 16), 1 << 16);
    } catch (IOException e) {
      raw.close();
      throw e;
    }
  }

  /**
   * A fresh UTF-8 reader over the content, from the beginning. Malformed bytes become U+FFFD. The
   * caller closes it.
   *
   * @throws IOException when the source cannot be opened
   */
  public BufferedReader openReader() throws IOException {
    return new BufferedReader(new InputStreamReader(open(), StandardCharsets.UTF_8), 1 << 16);
  }

  /**
   * Up to the first {@value #HEAD_BYTES} bytes of the (decompressed) content.
   *
   * @throws IOException when the source cannot be read
   */
  public byte[] head() throws IOException {
    return headBytes().clone();
  }

  private byte[] headBytes() throws IOException {
    if (head == null) {
      try (InputStream in = open()) {
        head = in.readNBytes(HEAD_BYTES);
      }
    }
    return head;
  }

  /**
   * Whether the content is empty or only whitespace within its first {@value #HEAD_BYTES} bytes
   * (and has nothing after them).
   *
   * @throws IOException when the source cannot be read
   */
  public boolean isBlank() throws IOException {
    byte[] h = headBytes();
    for (byte b : h) {
      if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
        return false;
      }
    }
    return h.length < HEAD_BYTES;
  }

  /**
   * Whether the first {@value #HEAD_BYTES} bytes contain a NUL byte: the content is binary, not
   * text.
   *
   * @throws IOException when the source cannot be read
   */
  public boolean looksBinary() throws IOException {
    for (byte b : headBytes()) {
      if (b == 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * The first {@code n} non-blank lines (fewer when the content has fewer), whole, however long.
   *
   * @throws IOException when the source cannot be read
   */
  public List<String> firstLines(int n) throws IOException {
    if (firstLines == null || firstLinesAsked < n) {
      List<String> lines = new ArrayList<>();
      try (BufferedReader r = openReader()) {
        String line;
        while (lines.size() < n && (line = r.readLine()) != null) {
          if (!line.isBlank()) {
            lines.add(line);
          }
        }
      }
      firstLines = lines;
      firstLinesAsked = n;
    }
    return List.copyOf(firstLines.subList(0, Math.min(n, firstLines.size())));
  }

  /**
   * The content parsed as one JSON document (parsed once, then cached).
   *
   * @throws ImportException naming the position when the content is not exactly one JSON value
   * @throws IOException when the source cannot be read
   */
  public JsonNode json() throws IOException {
    if (!jsonParsed) {
      jsonParsed = true;
      try (InputStream in = open()) {
        json = Json.TRANSCRIPTS.readTree(in);
        if (json == null || json.isMissingNode()) {
          json = null;
          jsonError = "no JSON value (empty content)";
        }
      } catch (JsonProcessingException e) {
        jsonError = "not one JSON document: " + Json.describe(e);
      }
    }
    if (json == null) {
      throw new ImportException(name + ": " + jsonError);
    }
    return json;
  }

  /**
   * Where elements of an array of the JSON document start, for messages that name a bad entry: for
   * each asked index, {@code line L, column C, byte B} (1-based line and column, 0-based byte
   * offset in the decompressed content), from one streaming pass over the source. Indexes that are
   * not in the array, and a path that does not lead to an array, are left out.
   *
   * @param arrayPath field names and array indexes leading from the root to the array (empty for a
   *     root array)
   * @param indexes the element indexes to locate
   * @throws IOException when the source cannot be read
   */
  public java.util.Map<Integer, String> locate(List<?> arrayPath, java.util.Set<Integer> indexes)
      throws IOException {
    java.util.Map<Integer, String> out = new java.util.TreeMap<>();
    if (indexes.isEmpty()) {
      return out;
    }
    try (InputStream in = open();
        com.fasterxml.jackson.core.JsonParser p = Json.TRANSCRIPTS.getFactory().createParser(in)) {
      com.fasterxml.jackson.core.JsonToken t = p.nextToken();
      for (Object step : arrayPath) {
        t = child(p, t, step);
        if (t == null) {
          return out;
        }
      }
      if (t != com.fasterxml.jackson.core.JsonToken.START_ARRAY) {
        return out;
      }
      int max = java.util.Collections.max(indexes);
      t = p.nextToken();
      for (int i = 0;
          i <= max && t != null && t != com.fasterxml.jackson.core.JsonToken.END_ARRAY;
          i++) {
        if (indexes.contains(i)) {
          com.fasterxml.jackson.core.JsonLocation at = p.currentTokenLocation();
          out.put(
              i,
              String.format(
                  Locale.ROOT,
                  "line %d, column %d, byte %d",
                  at.getLineNr(),
                  at.getColumnNr(),
                  at.getByteOffset()));
        }
        p.skipChildren();
        t = p.nextToken();
      }
    } catch (JsonProcessingException e) {
      // a document that does not parse was refused before any entry was read
    }
    return out;
  }

  /**
   * Moves from the container start {@code t} to the child {@code step} names: for an index, that
   * element of an array; for a name, the value of that field of an object (the first field of that
   * name: a document with two is rare and ambiguous). Null when there is no such child.
   */
  private static com.fasterxml.jackson.core.JsonToken child(
      com.fasterxml.jackson.core.JsonParser p, com.fasterxml.jackson.core.JsonToken t, Object step)
      throws IOException {
    boolean element = step instanceof Integer;
    if (t
        != (element
            ? com.fasterxml.jackson.core.JsonToken.START_ARRAY
            : com.fasterxml.jackson.core.JsonToken.START_OBJECT)) {
      return null;
    }
    String name = String.valueOf(step);
    t = p.nextToken();
    for (int i = 0; t != null && !t.isStructEnd(); i++) {
      boolean found;
      if (element) {
        found = step.equals(i);
      } else {
        found = p.currentName().equals(name);
        t = p.nextToken();
      }
      if (found) {
        return t;
      }
      p.skipChildren();
      t = p.nextToken();
    }
    return null;
  }

  @Override
  public String toString() {
    return path != null ? path.toString() : name;
  }
}
