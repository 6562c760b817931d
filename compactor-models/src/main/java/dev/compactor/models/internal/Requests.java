package dev.compactor.models.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.InputFingerprints;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.RequestExtension;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.wire.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Request-building and reply-finishing steps every client shares. */
public final class Requests {
  private Requests() {}

  /** Top-level fields that carry the conversation; options may not set them. */
  public static final Set<String> RESERVED_OPTIONS =
      Set.of("model", "messages", "input", "system", "instructions", "tools", "stream");

  /**
   * Writes the request's options into {@code body}, overriding fields the client set.
   *
   * @throws IllegalArgumentException when an option names a reserved field
   */
  public static void applyOptions(ObjectNode body, Map<String, Object> options) {
    for (Map.Entry<String, Object> e : options.entrySet()) {
      if (RESERVED_OPTIONS.contains(e.getKey())) {
        throw new IllegalArgumentException(
            "request option \""
                + e.getKey()
                + "\" would replace a field the client writes itself; reserved: "
                + RESERVED_OPTIONS.stream().sorted().toList());
      }
      body.set(e.getKey(), Json.tree(e.getValue()));
    }
  }

  /**
   * Rejects a request carrying an extension the client does not honour.
   *
   * @param client the client's {@code provider/model} and API, for the message
   * @param honoured the extension classes the client sends
   * @throws IllegalArgumentException naming the first extension that is not honoured
   */
  public static void onlyExtensions(
      ChatRequest request, String client, Set<Class<? extends RequestExtension>> honoured) {
    for (Class<? extends RequestExtension> type : request.extensions().keySet()) {
      if (!honoured.contains(type)) {
        throw new IllegalArgumentException(
            "request extension "
                + type.getSimpleName()
                + " is not honoured by "
                + client
                + "; it honours "
                + honoured.stream().map(Class::getSimpleName).sorted().toList());
      }
    }
  }

  /** The messages a provider sees: all but {@code uiOnly} ones. */
  public static List<Message> sendable(List<Message> messages) {
    return messages.stream().filter(m -> !m.uiOnly()).toList();
  }

  /**
   * The reply as returned to callers: metadata with the answering model, provider, usage,
   * compaction items and the input fingerprint of the request's messages, keyed by the qualified
   * {@code provider/model} (so a usage anchor is never reused for another provider's model of the
   * same name).
   *
   * @param requestedModel the model the request named (the fingerprint's model, qualified with the
   *     provider)
   * @param reportedModel the model the provider named, or null
   */
  public static Message finish(
      Message assembled,
      String provider,
      String requestedModel,
      String reportedModel,
      Usage usage,
      List<CompactionItem> items,
      ChatRequest request) {
    MessageMetadata md =
        new MessageMetadata(
            reportedModel != null ? reportedModel : requestedModel,
            provider,
            usage,
            null,
            Map.of());
    md = ProviderCompaction.withItems(md, items);
    Message m = assembled.toBuilder().role(Role.ASSISTANT).metadata(md).build();
    return InputFingerprints.stamp(
        m, request.messages(), ContextMeter.qualify(provider, requestedModel));
  }

  /** The partial message of a failed stream: metadata with model and provider only. */
  public static Message partial(MessageAssembler a, String provider, String model) {
    if (!a.hasOutput()) {
      return null;
    }
    Message m = a.build();
    return m.toBuilder()
        .metadata(new MessageMetadata(model, provider, null, null, Map.of()))
        .build();
  }
}
