package dev.compactor.log.imports;

import dev.compactor.core.CompactorException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A source could not be imported: it is in none of the known formats, the format asked for does not
 * fit, or its content is broken. The message names the source and, when several formats were tried,
 * every format and why it failed; {@link #attempts()} holds the same reasons by format name.
 */
public class ImportException extends CompactorException {
  private static final long serialVersionUID = 1L;

  private final Map<String, String> attempts;

  public ImportException(String message) {
    this(message, Map.of(), null);
  }

  public ImportException(String message, Throwable cause) {
    this(message, Map.of(), cause);
  }

  /**
   * @param message the whole explanation, including each attempt
   * @param attempts format name to the reason it failed, in the order tried
   * @param cause the underlying failure, or null
   */
  public ImportException(String message, Map<String, String> attempts, Throwable cause) {
    super(message, cause);
    this.attempts = Collections.unmodifiableMap(new LinkedHashMap<>(attempts));
  }

  /** Format name to the reason it failed, in the order tried; empty when not applicable. */
  public Map<String, String> attempts() {
    return attempts;
  }
}
