package dev.compactor.log.imports;

import java.io.IOException;
import java.util.List;

/**
 * Reads one foreign transcript format into Compactor messages.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>{@link #name()} is unique in a registry, lower case, stable (users pass it to pick the
 *       format explicitly).
 *   <li>{@link #detect} is cheap: it looks at the beginning of the source or at the parsed JSON
 *       document that {@link ImportSource} caches for all importers, and never throws for content
 *       that is merely not its format (it rejects with a reason instead).
 *   <li>{@link #read} returns conversations whose message lists pass {@link
 *       dev.compactor.core.view.ViewValidator}; anything it had to skip, merge or repair is said in
 *       the conversation's notes. It never loses or rewrites message text.
 *   <li>Neither method modifies the source. JSONL formats should stream line by line.
 * </ul>
 *
 * <p>Implementations are stateless and thread-safe; an {@link ImportSource} is not, so one source
 * is read by one thread.
 *
 * <p>Example, a registry with one more format:
 *
 * <pre>{@code
 * ImportResult r = ImporterRegistry.defaults().with(new MyFormatImporter()).read(path);
 * }</pre>
 */
public interface Importer {

  /** Unique format name, e.g. {@code gptme}. */
  String name();

  /** One line describing the format, for listings. */
  default String description() {
    return name();
  }

  /**
   * Whether {@code source} looks like this format.
   *
   * @throws IOException when the source cannot be read at all (the registry reports it as this
   *     format's reason)
   */
  Detection detect(ImportSource source) throws IOException;

  /**
   * Reads every conversation of {@code source}.
   *
   * @throws ImportException when the content does not fit this format, naming where (line, index)
   * @throws IOException when the source cannot be read
   */
  List<ImportedConversation> read(ImportSource source) throws IOException;
}
