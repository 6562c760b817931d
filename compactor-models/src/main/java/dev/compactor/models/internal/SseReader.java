package dev.compactor.models.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Reads server-sent events (the {@code text/event-stream} format) from a stream. An event whose
 * terminating blank line never arrived (the stream was cut) is discarded, as the format specifies.
 * Not thread-safe.
 */
final class SseReader {
  private final BufferedReader in;

  public SseReader(InputStream stream) {
    this.in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
  }

  /** The next event, or null at the end of the stream. */
  public SseEvent next() throws IOException {
    String event = null;
    StringBuilder data = null;
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) {
        if (data != null) {
          return new SseEvent(event, data.toString());
        }
        event = null;
        continue;
      }
      if (line.charAt(0) == ':') {
        continue;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      if (field.equals("event")) {
        event = value;
      } else if (field.equals("data")) {
        if (data == null) {
          data = new StringBuilder(value);
        } else {
          data.append('\n').append(value);
        }
      }
    }
    return null;
  }
}
