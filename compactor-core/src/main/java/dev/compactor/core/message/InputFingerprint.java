package dev.compactor.core.message;

import dev.compactor.core.Bounds;
import java.util.Objects;

/**
 * What a model call's input was, recorded on the response so its usage can serve as the usage
 * anchor: the number of stored messages before the response, the digest of those messages and the
 * model. The anchor is valid only while all three still match.
 *
 * @param messageCount stored messages that preceded the response
 * @param digest {@code Digests.prefix} of those messages
 * @param model the model that answered
 */
public record InputFingerprint(int messageCount, String digest, String model) {
  public InputFingerprint {
    Bounds.atLeast(0, messageCount, "messageCount");
    Objects.requireNonNull(digest, "digest");
    Objects.requireNonNull(model, "model");
  }
}
