package dev.compactor.log.imports;

import java.util.Objects;

/**
 * An importer's answer to "is this source in your format?".
 *
 * <p>A match carries a confidence from 1 to 100: when several importers match, the most confident
 * reads first (a format with a distinctive marker should answer 90 or more; a generic shape such as
 * "a JSON array of role/content objects" around 50–60). A rejection carries the reason, which ends
 * up in the {@link ImportException} when no format fits.
 *
 * @param matches whether the source looks like the importer's format
 * @param confidence 1–100 for a match, 0 for a rejection
 * @param reason the evidence for a match, or why the source was rejected; never blank
 */
public record Detection(boolean matches, int confidence, String reason) {
  public Detection {
    Objects.requireNonNull(reason, "reason");
    if (reason.isBlank()) {
      throw new IllegalArgumentException("a detection needs a reason");
    }
    if (matches && (confidence < 1 || confidence > 100)) {
      throw new IllegalArgumentException("match confidence must be 1..100, got " + confidence);
    }
    if (!matches && confidence != 0) {
      throw new IllegalArgumentException("a rejection has confidence 0, got " + confidence);
    }
  }

  /** The source looks like this format. */
  public static Detection match(int confidence, String evidence) {
    return new Detection(true, confidence, evidence);
  }

  /** The source is not in this format. */
  public static Detection reject(String reason) {
    return new Detection(false, 0, reason);
  }
}
