package dev.compactor.models.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseReaderTest {

  private static List<SseEvent> read(String text) throws IOException {
    SseReader r = new SseReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    List<SseEvent> out = new ArrayList<>();
    SseEvent e;
    while ((e = r.next()) != null) {
      out.add(e);
    }
    return out;
  }

  @Test
  void eventsWithNamesCommentsAndCrLf_areParsed() throws IOException {
    List<SseEvent> events =
        read(
            ": keep-alive\r\n\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\n"
                + "data:{\"b\":2}\n\n");
    assertThat(events)
        .containsExactly(
            new SseEvent("message_start", "{\"a\":1}"), new SseEvent(null, "{\"b\":2}"));
  }

  @Test
  void multiLineData_isJoinedWithNewlines() throws IOException {
    assertThat(read("data: a\ndata: b\n\n")).containsExactly(new SseEvent(null, "a\nb"));
  }

  @Test
  void eventCutBeforeItsBlankLine_isDiscarded() throws IOException {
    assertThat(read("data: whole\n\ndata: {\"cut\":")).containsExactly(new SseEvent(null, "whole"));
  }
}
