package dev.compactor.models.internal;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises "the prompt does not fit the context window" in what a provider said, and the token
 * counts it gave. Works on strings a client has already pulled out of the error body (so core stays
 * free of JSON): message, error type, error code, stop reason, and numeric fields.
 *
 * <p>An overflow is any of (first match wins, case-insensitive):
 *
 * <ul>
 *   <li>code or type {@code context_length_exceeded} (OpenAI, vLLM) or {@code
 *       exceed_context_size_error} (llama.cpp);
 *   <li>stop reason {@code model_context_window_exceeded} (Anthropic);
 *   <li>message containing "maximum context length", "context window", "exceeds the available
 *       context size", "prompt is too long", "exceed context limit", "longer than the context
 *       length" or "input exceeds".
 * </ul>
 *
 * <p>Counts come from the numeric fields when given (llama.cpp {@code n_prompt_tokens}, {@code
 * n_ctx}), else from the message: "{@code N tokens > W}" (Anthropic), "maximum context length is W
 * tokens. However, your messages resulted in N tokens" (OpenAI), "… your request has N input
 * tokens" and "… you requested T tokens (N in the messages, C in the completion)" (vLLM), "request
 * (N tokens) exceeds the available context size (W tokens)" (llama.cpp), "{@code N + M > W}"
 * (Anthropic input plus {@code max_tokens}; N is the prompt). Numbers may use thousands commas.
 *
 * <p>Stateless and thread-safe.
 *
 * <pre>{@code
 * Optional<Match> m = OverflowClassifier.classify(
 *     Signals.of("prompt is too long: 208656 tokens > 200000 maximum", "invalid_request_error", null));
 * m.get().promptTokens(); // 208656
 * }</pre>
 */
final class OverflowClassifier {
  private OverflowClassifier() {}

  private static final List<String> CODES =
      List.of("context_length_exceeded", "exceed_context_size_error");
  private static final String STOP_REASON = "model_context_window_exceeded";
  private static final List<String> PHRASES =
      List.of(
          "maximum context length",
          "context window",
          "exceeds the available context size",
          "prompt is too long",
          "exceed context limit",
          "longer than the context length",
          "input exceeds");

  private static final String N = "(\\d{1,3}(?:,\\d{3})+|\\d+)";

  /** A count pattern and which groups hold the prompt size and the window (0 = none). */
  private record CountPattern(Pattern pattern, int promptGroup, int windowGroup) {
    static CountPattern of(String regex, int promptGroup, int windowGroup) {
      return new CountPattern(
          Pattern.compile(regex, Pattern.CASE_INSENSITIVE), promptGroup, windowGroup);
    }
  }

  private static final List<CountPattern> COUNTS =
      List.of(
          CountPattern.of(
              "maximum context length is "
                  + N
                  + " tokens\\. However, your messages resulted in "
                  + N
                  + " tokens",
              2,
              1),
          CountPattern.of(
              "maximum context length is "
                  + N
                  + " tokens\\. However, your request has "
                  + N
                  + " input tokens",
              2,
              1),
          CountPattern.of(
              "maximum context length is "
                  + N
                  + " tokens\\. However, you requested "
                  + N
                  + " tokens \\("
                  + N
                  + " in the messages",
              3,
              1),
          CountPattern.of(
              "request \\("
                  + N
                  + " tokens\\) exceeds the available context size \\("
                  + N
                  + " tokens\\)",
              1,
              2),
          CountPattern.of(N + " \\+ " + N + " > " + N, 1, 3),
          CountPattern.of(N + " tokens > " + N, 1, 2),
          CountPattern.of("maximum context length is " + N + " tokens", 0, 1));

  /**
   * What a provider said about a failed or stopped call. Every field may be null.
   *
   * @param message the error message
   * @param type the error type
   * @param code the error code (numeric codes as text)
   * @param stopReason the stop / finish reason of a response
   * @param promptTokens a numeric prompt size field (llama.cpp {@code n_prompt_tokens})
   * @param contextWindow a numeric window field (llama.cpp {@code n_ctx})
   */
  public record Signals(
      String message,
      String type,
      String code,
      String stopReason,
      Long promptTokens,
      Long contextWindow) {
    /** Signals of an error body with message, type and code. */
    public static Signals of(String message, String type, String code) {
      return new Signals(message, type, code, null, null, null);
    }

    /** Signals of a response that stopped for {@code stopReason}. */
    public static Signals ofStopReason(String stopReason) {
      return new Signals(null, null, null, stopReason, null, null);
    }

    /** These signals with numeric count fields. */
    public Signals withCounts(Long prompt, Long window) {
      return new Signals(message, type, code, stopReason, prompt, window);
    }
  }

  /**
   * A recognised overflow.
   *
   * @param reason which signal matched, e.g. {@code code context_length_exceeded}
   * @param promptTokens the prompt size, when given
   * @param contextWindow the window or limit exceeded, when given
   */
  public record Match(String reason, OptionalLong promptTokens, OptionalLong contextWindow) {}

  /** Whether the signals describe a context overflow. */
  public static boolean isOverflow(Signals signals) {
    return reason(signals) != null;
  }

  /**
   * Classifies the signals.
   *
   * @return the match with the counts found, or empty when this is not an overflow
   */
  public static Optional<Match> classify(Signals signals) {
    String reason = reason(signals);
    if (reason == null) {
      return Optional.empty();
    }
    OptionalLong prompt = positive(signals.promptTokens());
    OptionalLong window = positive(signals.contextWindow());
    if ((prompt.isEmpty() || window.isEmpty()) && signals.message() != null) {
      for (CountPattern cp : COUNTS) {
        Matcher m = cp.pattern().matcher(signals.message());
        if (m.find()) {
          if (prompt.isEmpty() && cp.promptGroup() > 0) {
            prompt = parse(m.group(cp.promptGroup()));
          }
          if (window.isEmpty() && cp.windowGroup() > 0) {
            window = parse(m.group(cp.windowGroup()));
          }
          break;
        }
      }
    }
    return Optional.of(new Match(reason, prompt, window));
  }

  private static String reason(Signals s) {
    for (String c : CODES) {
      if (c.equalsIgnoreCase(trim(s.code()))) {
        return "code " + c;
      }
      if (c.equalsIgnoreCase(trim(s.type()))) {
        return "type " + c;
      }
    }
    if (STOP_REASON.equalsIgnoreCase(trim(s.stopReason()))) {
      return "stop reason " + STOP_REASON;
    }
    if (s.message() != null) {
      String lower = s.message().toLowerCase(Locale.ROOT);
      for (String p : PHRASES) {
        if (lower.contains(p)) {
          return "message contains \"" + p + "\"";
        }
      }
    }
    return null;
  }

  private static String trim(String s) {
    return s == null ? null : s.trim();
  }

  private static OptionalLong positive(Long v) {
    return v != null && v > 0 ? OptionalLong.of(v) : OptionalLong.empty();
  }

  private static OptionalLong parse(String digits) {
    try {
      long v = Long.parseLong(digits.replace(",", ""));
      return v > 0 ? OptionalLong.of(v) : OptionalLong.empty();
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
