package dev.compactor.server.proxy;

import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The session headers clients send on every request of one working session, in the order the proxy
 * reads them (the first one present wins). A session scopes conversation matching: a request is
 * matched by content only among the conversations of its session, so two sessions never share a
 * conversation, and two conversations interleaved in one session (a coding agent's main loop and
 * its sub-agents) stay apart. {@code X-Compactor-Conversation}, when given, comes before all of
 * these (it names one conversation, not a session).
 */
final class SessionHeaders {
  /** The headers, first wins; each with the client that sends it. */
  static final List<String> NAMES =
      List.of(
          "x-claude-code-session-id", // Claude Code (2.1.86 and later), on every request
          "session_id", // Codex CLI
          "session-id", // Codex CLI (older releases)
          "x-session-id", // generic: OpenAI-compatible gateways and SDK users
          "x-session-affinity", // opencode
          "helicone-session-id"); // clients set up for the Helicone gateway

  /** The longest session value read (a header's or a body field's). */
  static final int MAX_LENGTH = 200;

  private SessionHeaders() {}

  /**
   * The session of a request as {@code NAME:VALUE} (the header's lower-case name, so that two
   * clients' ids never collide), or null when it sends none (or only blank, over-long or
   * control-character values).
   */
  static String of(UnaryOperator<String> header) {
    for (String name : NAMES) {
      String raw = header.apply(name);
      String v = raw == null ? null : usable(raw);
      if (v != null) {
        return name.toLowerCase(Locale.ROOT) + ":" + v;
      }
    }
    return null;
  }

  /**
   * A session value stripped, or null when it is blank, longer than {@link #MAX_LENGTH} or holds a
   * control character: the rule for headers and body fields alike.
   */
  static String usable(String value) {
    String s = value.strip();
    return s.isEmpty() || s.length() > MAX_LENGTH || s.chars().anyMatch(c -> c < 0x20 || c == 0x7f)
        ? null
        : s;
  }
}
