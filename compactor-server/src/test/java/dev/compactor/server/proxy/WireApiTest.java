package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class WireApiTest {
  private static final Pattern CHAT_ID = Pattern.compile("msg-(\\d+)");
  private static final Pattern TURN_ID = Pattern.compile("msg-(\\d+)(?:-result-\\d+)?");

  private static int byPattern(String id, boolean results) {
    Matcher m = (results ? TURN_ID : CHAT_ID).matcher(id);
    return m.matches() ? Integer.parseInt(m.group(1)) : -1;
  }

  @Test
  void messageNumbersAreReadAsTheIdPatternsReadThem() {
    for (String id :
        List.of(
            "msg-0",
            "msg-17",
            "msg-007",
            "msg-3-result-0",
            "msg-3-result-12",
            "msg-3-result-",
            "msg-3-result-x",
            "msg-3-result-1x",
            "msg-3-resul-1",
            "msg-",
            "msg-x",
            "msg-12a",
            "msg--1",
            "system",
            "",
            "msg-٣",
            "xmsg-1",
            "MSG-1")) {
      for (boolean results : new boolean[] {false, true}) {
        assertThat(WireApi.messageNumber(id, results))
            .as("%s, results %s", id, results)
            .isEqualTo(byPattern(id, results));
      }
    }
    assertThat(WireApi.messageNumber("msg-99999999999", false)).isEqualTo(-1);
  }
}
