package dev.compactor.core.catalog;

import dev.compactor.core.CompactorException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Reads the text of a table that ships as a class-path resource (the built-in catalog, prices). */
final class BuiltInResource {
  private BuiltInResource() {}

  /**
   * The UTF-8 text of {@code resource}, found as {@code owner} finds its resources.
   *
   * @param what what the resource holds, for error messages (e.g. {@code "price table"})
   * @throws CompactorException naming the resource when it is missing or cannot be read
   */
  static String read(Class<?> owner, String resource, String what) {
    try (InputStream in = owner.getResourceAsStream(resource)) {
      if (in == null) {
        throw new CompactorException("built-in " + what + " resource " + resource + " missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CompactorException("cannot read built-in " + what + " " + resource, e);
    }
  }
}
