package dev.compactor.core.model;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import java.util.List;
import java.util.Objects;

/**
 * Stamps a reply with the fingerprint of the input it answered, so its provider-reported usage can
 * serve as the usage anchor of {@link dev.compactor.core.tokens.ContextMeter}.
 *
 * <p>The fingerprint is {@code new InputFingerprint(messages.size(), Digests.prefix(messages),
 * model)} over the stored messages the request was built from (including {@code uiOnly} ones, which
 * are not sent but are part of the stored list). It stays valid once the reply is appended right
 * after those messages and until any of them changes or the model changes. Every client of {@code
 * compactor-models} stamps its replies this way; call this yourself when you build replies another
 * way or send a list other than the one you store.
 *
 * <pre>{@code
 * Message reply = InputFingerprints.stamp(response.message(), stored, "gpt-4o");
 * stored.add(reply);
 * }</pre>
 */
public final class InputFingerprints {
  private InputFingerprints() {}

  /**
   * The fingerprint of {@code messages} for {@code model}: O(size of the messages).
   *
   * @throws NullPointerException when an argument is null
   */
  public static InputFingerprint of(List<Message> messages, String model) {
    Objects.requireNonNull(messages, "messages");
    Objects.requireNonNull(model, "model");
    return new InputFingerprint(messages.size(), Digests.prefix(messages), model);
  }

  /** {@code reply} with {@code metadata.input} set to {@link #of}{@code (messages, model)}. */
  public static Message stamp(Message reply, List<Message> messages, String model) {
    return reply.toBuilder().metadata(reply.metadata().withInput(of(messages, model))).build();
  }
}
