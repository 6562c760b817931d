package dev.compactor.core.message;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Typed metadata of a message.
 *
 * @param model model that produced an assistant message, or null
 * @param provider provider name (e.g. {@code openai}, {@code anthropic}), or null
 * @param usage provider-reported usage of the call that produced this message, or null
 * @param input fingerprint of that call's input (for the usage anchor), or null
 * @param extra fields of the source record this model has no place for, kept so nothing is lost.
 *     Values are plain JSON values: String, Number, Boolean, null, List and Map of those.
 */
public record MessageMetadata(
    String model, String provider, Usage usage, InputFingerprint input, Map<String, Object> extra) {
  public static final MessageMetadata EMPTY = new MessageMetadata(null, null, null, null, Map.of());

  public MessageMetadata {
    extra =
        extra == null || extra.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(extra));
  }

  public MessageMetadata withUsage(Usage u) {
    return new MessageMetadata(model, provider, u, input, extra);
  }

  public MessageMetadata withInput(InputFingerprint f) {
    return new MessageMetadata(model, provider, usage, f, extra);
  }

  public MessageMetadata withModel(String m) {
    return new MessageMetadata(m, provider, usage, input, extra);
  }

  public boolean isEmpty() {
    return model == null && provider == null && usage == null && input == null && extra.isEmpty();
  }
}
