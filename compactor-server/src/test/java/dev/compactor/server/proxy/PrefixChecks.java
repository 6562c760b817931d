package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.testkit.model.RecordedRequest;
import java.util.List;

/** Checks on what the fake provider received through the proxy. */
final class PrefixChecks {
  private PrefixChecks() {}

  /** The {@code messages} array of a request body, exactly as its bytes were sent. */
  static String messagesText(RecordedRequest r) {
    return arrayText(r, "messages");
  }

  /** The array {@code field} of a request body, exactly as its bytes were sent. */
  static String arrayText(RecordedRequest r, String field) {
    String body = r.body();
    int at = body.indexOf('[', body.indexOf("\"" + field + "\":"));
    int depth = 0;
    boolean inString = false;
    for (int i = at; i < body.length(); i++) {
      char c = body.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '[' || c == '{') {
        depth++;
      } else if (c == ']' || c == '}') {
        depth--;
        if (depth == 0) {
          return body.substring(at, i + 1);
        }
      }
    }
    throw new AssertionError("no " + field + " array in " + body);
  }

  /**
   * Asserts that every request whose answer said {@code x-compactor-action: none} sent the previous
   * request's conversation byte for byte with only new messages appended, and that the others were
   * compactions; returns how many compactions there were.
   *
   * @param sent the requests the provider received, one per client call
   * @param actions the {@code x-compactor-action} of each call's answer, in order
   */
  static int assertCachePreserving(List<RecordedRequest> sent, List<String> actions) {
    return assertCachePreserving(sent, actions, "messages");
  }

  /** {@link #assertCachePreserving(List, List)} for the conversation array {@code field}. */
  static int assertCachePreserving(List<RecordedRequest> sent, List<String> actions, String field) {
    assertThat(sent).hasSameSizeAs(actions);
    int compactions = 0;
    for (int i = 1; i < sent.size(); i++) {
      String prev = arrayText(sent.get(i - 1), field);
      String now = arrayText(sent.get(i), field);
      if (actions.get(i).equals("none")) {
        assertThat(now)
            .as("request %d sends request %d's conversation unchanged, then new messages", i, i - 1)
            .startsWith(prev.substring(0, prev.length() - 1));
      } else {
        compactions++;
        assertThat(actions.get(i)).isIn("masked", "trimmed", "summarized");
      }
    }
    return compactions;
  }
}
