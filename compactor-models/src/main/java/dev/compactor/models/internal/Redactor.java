package dev.compactor.models.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes secrets from text that may end up in exception messages, excerpts or logs: the exact keys
 * a client knows, plus anything shaped like an API key ({@code sk-…}, {@code sk-ant-…}), a bearer
 * token or an {@code api_key}/{@code x-api-key} value. Immutable, thread-safe.
 */
public final class Redactor {
  public static final String MASK = "[REDACTED]";

  private static final List<Pattern> SHAPES =
      List.of(
          Pattern.compile("sk-[A-Za-z0-9_\\-]{16,}"),
          Pattern.compile("(?i)(bearer\\s+)[A-Za-z0-9._~+/=\\-]{8,}"),
          Pattern.compile(
              "(?i)(\"?(?:x-api-key|api[_-]?key|authorization)\"?\\s*[:=]\\s*\"?)[^\"\\s,}]{8,}"));

  private final List<String> secrets;

  /** A redactor of the given secrets (blank ones and ones shorter than 4 characters ignored). */
  public Redactor(Collection<String> secrets) {
    List<String> s = new ArrayList<>();
    for (String x : secrets) {
      if (x != null && x.strip().length() >= 4) {
        s.add(x.strip());
      }
    }
    s.sort(Comparator.comparingInt(String::length).reversed());
    this.secrets = List.copyOf(s);
  }

  /** A redactor of key-shaped text only. */
  public static Redactor shapesOnly() {
    return new Redactor(List.of());
  }

  /** The text with every secret replaced by {@value #MASK}; null stays null. */
  public String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    for (String s : secrets) {
      out = out.replace(s, MASK);
    }
    for (Pattern p : SHAPES) {
      Matcher m = p.matcher(out);
      if (m.find()) {
        out =
            m.replaceAll(
                r -> Matcher.quoteReplacement(r.groupCount() >= 1 ? r.group(1) + MASK : MASK));
      }
    }
    return out;
  }
}
