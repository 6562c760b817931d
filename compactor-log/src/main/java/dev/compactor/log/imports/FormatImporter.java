package dev.compactor.log.imports;

import java.io.IOException;
import java.util.Objects;

/**
 * Base of the built-in importers: the format's name and description, and the first check of every
 * detection — an empty or binary source is rejected before {@link #detectContent} looks at it.
 */
abstract class FormatImporter implements Importer {
  private final String name;
  private final String description;
  private final String textKind;

  /**
   * @param name the format's unique name
   * @param description one line describing the format, for listings
   * @param textKind what the content must be, for the rejection of binary content, e.g. {@code
   *     "JSON lines"}
   */
  FormatImporter(String name, String description, String textKind) {
    this.name = Objects.requireNonNull(name, "name");
    this.description = Objects.requireNonNull(description, "description");
    this.textKind = Objects.requireNonNull(textKind, "textKind");
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String description() {
    return description;
  }

  @Override
  public final Detection detect(ImportSource source) throws IOException {
    if (source.isBlank()) {
      return Detection.reject("the content is empty");
    }
    if (source.looksBinary()) {
      return Detection.reject("the content is binary (NUL bytes), not " + textKind);
    }
    return detectContent(source);
  }

  /**
   * Whether {@code source}, neither empty nor binary, looks like this format; never throws for
   * another format.
   */
  abstract Detection detectContent(ImportSource source) throws IOException;
}
