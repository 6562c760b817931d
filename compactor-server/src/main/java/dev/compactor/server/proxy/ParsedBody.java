package dev.compactor.server.proxy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A request body parsed from its bytes, with where each value of the top-level object and each
 * element of its arrays lies in those bytes, so that {@link ChainMemo} can tell by comparing bytes
 * that a request's leading items are the very ones of an earlier request. The tree is the one
 * {@code Json.MAPPER.readTree(raw)} gives; a body this reader does not take apart (not a UTF-8 JSON
 * object, a top-level key given twice) is read whole by that and has no spans.
 *
 * <p>{@link #parse(byte[], ParsedBody)} reads the next turn of a conversation without reading its
 * history again: where the body's bytes begin with those of an earlier body up to the end of a
 * top-level value or of an element of a top-level array, the JSON read from them is the same, so
 * that part of the earlier tree is taken as it is (the same node objects, never changed by the
 * proxy) and only the bytes after it are read. Built once, then only read (but for the hints {@link
 * #rewritten} and {@link #decoded}): safe to share between threads.
 */
final class ParsedBody {
  /** The bytes as the client sent them. */
  final byte[] raw;

  /** The JSON, or null when the body is not JSON. */
  final JsonNode root;

  /** The top-level fields in the order of the bytes, or empty when the body has no spans. */
  private final List<Field> fields;

  /** Bytes of {@link #raw} taken from an earlier body rather than read (0: read whole). */
  final int reused;

  /**
   * The top-level array whose leading elements were taken from the earlier body ({@link
   * #taken(String)}), and how many; or null and 0.
   */
  private final String takenArray;

  private final int takenElements;

  /** The top-level fields taken whole from the earlier body. */
  private final List<String> keptNames;

  /**
   * The format whose request items were read from this body without fault ({@link WireApi#items}),
   * or null: a hint for the next request that takes values from this one.
   */
  volatile WireApi itemsOf;

  /**
   * Whether the proxy sent something else than these bytes for this request (a compacted or stored
   * view): set once the request is planned, read as a hint for the conversation's next request
   * ({@link EarlyForward}).
   */
  volatile boolean rewritten;

  /**
   * The messages decoded from this body's items when they were sent as the client sent them, for
   * the next request that continues it ({@link WireApi#decodeContinuing}); or null.
   */
  volatile WireApi.DecodedItems decoded;

  /**
   * One top-level field: its name, its value and where the value lies; for an array, where each
   * element starts and ends ({@code starts[i]}, {@code ends[i]}, exclusive), in the order of the
   * array (both null for any other value).
   */
  private record Field(
      String name, JsonNode value, long start, long end, long[] starts, long[] ends) {}

  /** Elements an array is made with room for, beyond those taken from an earlier body. */
  private static final int NEW_ELEMENTS = 16;

  /** Reads one value of the body, in place (the body's end is checked once, at its end). */
  private static final ObjectReader VALUES =
      Json.MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private ParsedBody(byte[] raw, JsonNode root, List<Field> fields, int reused, Resume resume) {
    this.raw = raw;
    this.root = root;
    this.fields = fields;
    this.reused = reused;
    this.takenArray = resume.open() == null ? null : resume.open().name();
    this.takenElements = resume.elements();
    this.keptNames = resume.kept().stream().map(Field::name).toList();
  }

  /** Parses {@code raw}: never throws; a body that is not JSON has a null {@link #root}. */
  static ParsedBody parse(byte[] raw) {
    try {
      ParsedBody b = withSpans(raw, raw, 0, Resume.NONE, 0);
      if (b != null) {
        return b;
      }
    } catch (IOException | RuntimeException e) {
      // read it whole below, exactly as before: it decides what the body is
    }
    return new ParsedBody(raw, whole(raw), List.of(), 0, Resume.NONE);
  }

  /**
   * Parses {@code raw} as {@link #parse(byte[])} does, taking from {@code earlier} (a body parsed
   * before, or null) every top-level value and array element that lies in the bytes both begin
   * with: the tree and the spans are those {@link #parse(byte[])} gives, node for node equal.
   */
  static ParsedBody parse(byte[] raw, ParsedBody earlier) {
    if (earlier != null && !earlier.fields.isEmpty()) {
      try {
        ParsedBody b = continued(raw, earlier);
        if (b != null) {
          return b;
        }
      } catch (IOException | RuntimeException e) {
        // read it from the start below: the whole reader decides what the body is
      }
    }
    return parse(raw);
  }

  /**
   * How many leading elements of the top-level array {@code field} are the very nodes of the
   * earlier body {@link #parse(byte[], ParsedBody)} took them from: all of them when the field was
   * taken whole; 0 when nothing was taken. (No reference to that body is kept: it may be let go.)
   */
  int taken(String field) {
    if (field.equals(takenArray)) {
      return takenElements;
    }
    if (keptNames.contains(field)) {
      JsonNode v = root.get(field);
      return v != null && v.isArray() ? v.size() : 0;
    }
    return 0;
  }

  /**
   * Where {@code node} lies in {@link #raw}: {@code {start, end}} (end exclusive), or null when it
   * is not a top-level value or an element of a top-level array (or the body has no spans), or is
   * one of the factory's shared nodes ({@code null}, booleans, small numbers, the empty string),
   * which one identity cannot place.
   */
  long[] span(JsonNode node) {
    return span(node, -1);
  }

  /**
   * As {@link #span(JsonNode)}, looking first at element {@code hint} and the one before it of each
   * top-level array (a caller walking the elements in order knows where the next one is): found by
   * the identity of the nodes in the arrays, without touching the other nodes.
   */
  long[] span(JsonNode node, int hint) {
    if (!placeable(node)) {
      return null;
    }
    for (Field f : fields) {
      if (f.value() == node) {
        return new long[] {f.start(), f.end()};
      }
    }
    for (Field f : fields) {
      for (int i = hint; f.starts() != null && i >= 0 && i >= hint - 1; i--) {
        if (i < f.starts().length && f.value().get(i) == node) {
          return new long[] {f.starts()[i], f.ends()[i]};
        }
      }
    }
    for (Field f : fields) {
      for (int i = 0; f.starts() != null && i < f.starts().length; i++) {
        if (f.value().get(i) == node) {
          return new long[] {f.starts()[i], f.ends()[i]};
        }
      }
    }
    return null;
  }

  private static JsonNode whole(byte[] raw) {
    try {
      JsonNode n = Json.MAPPER.readTree(raw);
      return n == null || n.isMissingNode() ? null : n;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Whether one can tell where a node lies by its identity: only nodes the reader makes anew each
   * time (objects, arrays, non-empty strings), never the factory's shared ones.
   */
  private static boolean placeable(JsonNode n) {
    return n != null && (n.isContainerNode() || (n.isTextual() && !n.textValue().isEmpty()));
  }

  /**
   * The body read after the bytes it shares with {@code earlier}, or null when it shares no whole
   * value with it (or the part read is one the reader leaves to {@link #whole}).
   */
  private static ParsedBody continued(byte[] raw, ParsedBody earlier) throws IOException {
    long same = Arrays.mismatch(raw, earlier.raw);
    if (same < 0) {
      same = raw.length; // the very same bytes
    }
    // the top-level fields, then the leading elements of a top-level array, within those bytes
    List<Field> kept = new ArrayList<>();
    Field open = null;
    int elements = 0;
    for (Field f : earlier.fields) {
      if (within(f.end(), same, raw)) {
        kept.add(f);
        continue;
      }
      if (f.ends() != null) {
        while (elements < f.ends().length && within(f.ends()[elements], same, raw)) {
          elements++;
        }
        open = elements > 0 ? f : null;
      }
      break;
    }
    if (open == null && kept.isEmpty()) {
      return null;
    }
    long cut; // where reading starts again in raw
    String lead; // bytes that put a reader where it would be at the cut
    if (open != null) {
      cut = open.ends()[elements - 1];
      lead = "{" + Json.write(Json.NODES.textNode(open.name())) + ":[0";
    } else {
      cut = kept.get(kept.size() - 1).end();
      lead = "{\"\":0";
    }
    byte[] head = lead.getBytes(StandardCharsets.UTF_8);
    byte[] rest = new byte[head.length + raw.length - (int) cut];
    System.arraycopy(head, 0, rest, 0, head.length);
    System.arraycopy(raw, (int) cut, rest, head.length, raw.length - (int) cut);
    return withSpans(raw, rest, cut - head.length, new Resume(kept, open, elements), (int) cut);
  }

  /**
   * Whether a value ending at {@code end} is read alike from two bodies sharing their first {@code
   * same} bytes: it ends within them, and where it ends at their end, with a closing quote or
   * bracket (a number or a literal ends where the next byte says).
   */
  private static boolean within(long end, long same, byte[] raw) {
    if (end < same) {
      return true;
    }
    if (end > same || end == 0) {
      return false;
    }
    byte last = raw[(int) end - 1];
    return last == '"' || last == '}' || last == ']';
  }

  /**
   * What {@link #withSpans} resumes after: the fields taken whole from an earlier body, then the
   * array ({@code open}, or null) whose first {@code elements} elements were taken, and their
   * spans. The bytes read begin with a stand-in: a field {@code "":0} for the fields taken, or the
   * open array's name and a first element {@code 0} for the elements taken.
   */
  private record Resume(List<Field> kept, Field open, int elements) {
    static final Resume NONE = new Resume(List.of(), null, 0);

    boolean resumed() {
      return open != null || !kept.isEmpty();
    }
  }

  /**
   * The body with spans, or null when this reader leaves it to {@link #whole}. Reads {@code bytes},
   * whose offset {@code i} is offset {@code i + shift} of {@code raw}, after what {@code resume}
   * took from an earlier body.
   */
  private static ParsedBody withSpans(
      byte[] raw, byte[] bytes, long shift, Resume resume, int reused) throws IOException {
    List<Field> fields = new ArrayList<>(resume.kept());
    ObjectNode root = Json.MAPPER.getNodeFactory().objectNode();
    for (Field f : resume.kept()) {
      root.set(f.name(), f.value());
    }
    try (JsonParser p = Json.MAPPER.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      boolean standIn = resume.resumed();
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (!standIn && root.has(name)) {
          return null; // which of the two counts is the tree reader's to say
        }
        JsonToken v = p.nextToken();
        long start = p.currentTokenLocation().getByteOffset();
        if (start < 0) {
          return null; // not read as bytes
        }
        start += shift;
        JsonNode value;
        long[] starts = null;
        long[] ends = null;
        if (v == JsonToken.START_ARRAY) {
          boolean resumes = standIn && resume.open() != null;
          // room for the elements taken and a turn's new ones, without growing the array as they go
          ArrayNode array =
              Json.MAPPER
                  .getNodeFactory()
                  .arrayNode(resumes ? resume.elements() + NEW_ELEMENTS : NEW_ELEMENTS);
          List<long[]> read = new ArrayList<>();
          boolean skipFirst = false;
          int taken = 0;
          if (resumes) {
            Field open = resume.open();
            taken = resume.elements();
            for (int i = 0; i < taken; i++) {
              array.add(open.value().get(i));
            }
            start = open.start();
            skipFirst = true;
          }
          while (p.nextToken() != JsonToken.END_ARRAY) {
            long from = p.currentTokenLocation().getByteOffset() + shift;
            JsonNode element = VALUES.readTree(p);
            if (element == null) {
              return null;
            }
            long to = p.currentLocation().getByteOffset() + shift;
            if (skipFirst) {
              skipFirst = false; // the stand-in for the elements taken
              continue;
            }
            array.add(element);
            read.add(new long[] {from, to});
          }
          value = array;
          starts = new long[taken + read.size()];
          ends = new long[taken + read.size()];
          if (taken > 0) {
            System.arraycopy(resume.open().starts(), 0, starts, 0, taken);
            System.arraycopy(resume.open().ends(), 0, ends, 0, taken);
          }
          for (int i = 0; i < read.size(); i++) {
            starts[taken + i] = read.get(i)[0];
            ends[taken + i] = read.get(i)[1];
          }
        } else {
          value = VALUES.readTree(p);
          if (value == null) {
            return null;
          }
        }
        long end = p.currentLocation().getByteOffset() + shift;
        if (standIn && resume.open() == null) {
          standIn = false;
          continue; // the stand-in for the fields taken
        }
        standIn = false;
        root.set(name, value);
        fields.add(new Field(name, value, start, end, starts, ends));
      }
      if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
        return null; // trailing content: the tree reader refuses it
      }
      return new ParsedBody(raw, root, List.copyOf(fields), reused, resume);
    }
  }
}
