package dev.compactor.log.imports;

import java.nio.file.Path;

/**
 * Entry point for importing foreign transcripts with the {@linkplain ImporterRegistry#defaults()
 * default importers}.
 *
 * <p>Built-in formats: {@code claude-code}, {@code gptme}, {@code tau-bench}, {@code
 * mini-swe-agent}, {@code swe-agent}, {@code anthropic-messages}, {@code openai-chat}. Gzip is
 * recognised by its magic bytes, whatever the file name. The source is only read.
 *
 * <pre>{@code
 * ImportResult r = Importers.read(Path.of("session.jsonl.gz"));
 * for (ImportedConversation c : r.conversations()) {
 *   List<Message> messages = c.messages(); // valid for ViewValidator
 * }
 * }</pre>
 */
public final class Importers {
  private Importers() {}

  /** The default registry: the built-ins plus importers found by {@code ServiceLoader}. */
  public static ImporterRegistry registry() {
    return Holder.DEFAULTS;
  }

  /**
   * Reads a file, detecting its format.
   *
   * @throws ImportException when no format fits (the message lists every format tried and why it
   *     failed) or the file cannot be read
   */
  public static ImportResult read(Path file) {
    return registry().read(file);
  }

  /**
   * Reads a file in the named format, without detection.
   *
   * @throws ImportException when the format is unknown, does not fit, or the file cannot be read
   */
  public static ImportResult read(Path file, String format) {
    return registry().read(file, format);
  }

  private static final class Holder {
    static final ImporterRegistry DEFAULTS = ImporterRegistry.defaults();
  }
}
