package dev.compactor.chat.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stored form of a message: one JSON object with every field of {@link Message}, so that
 * reading it back gives an equal message (reasoning blocks with signatures and provider compaction
 * items in {@code metadata.extra} included: they must go back to the provider unchanged).
 */
final class StoredMessages {
  private StoredMessages() {}

  static final ObjectMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
                  .build())
          .build();

  static String write(Message m) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", m.id().value());
    o.put("role", m.role().wireName());
    o.put("content", m.content());
    if (!m.reasoning().isEmpty()) {
      ArrayNode a = o.putArray("reasoning");
      for (ReasoningBlock r : m.reasoning()) {
        a.addObject().put("type", r.type()).put("text", r.text()).put("signature", r.signature());
      }
    }
    if (!m.toolCalls().isEmpty()) {
      ArrayNode a = o.putArray("tool_calls");
      for (ToolCall c : m.toolCalls()) {
        a.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.arguments());
      }
    }
    if (m.toolCallId() != null) {
      o.put("tool_call_id", m.toolCallId());
    }
    if (m.timestamp() != null) {
      o.put("timestamp", m.timestamp().toString());
    }
    if (m.pinned()) {
      o.put("pinned", true);
    }
    if (m.hidden()) {
      o.put("hidden", true);
    }
    if (m.uiOnly()) {
      o.put("ui_only", true);
    }
    MessageMetadata md = m.metadata();
    if (!md.isEmpty()) {
      ObjectNode meta = o.putObject("metadata");
      meta.put("model", md.model());
      meta.put("provider", md.provider());
      if (md.usage() != null) {
        Usage u = md.usage();
        meta.putObject("usage")
            .put("input", u.input())
            .put("output", u.output())
            .put("cache_read", u.cacheRead())
            .put("cache_write", u.cacheWrite())
            .put("reasoning", u.reasoning());
      }
      if (md.input() != null) {
        meta.putObject("input")
            .put("messages", md.input().messageCount())
            .put("digest", md.input().digest())
            .put("model", md.input().model());
      }
      if (!md.extra().isEmpty()) {
        meta.set("extra", JSON.valueToTree(md.extra()));
      }
    }
    String text = o.toString();
    // A lone surrogate cannot be encoded in UTF-8 (the database would store "?"): escape every
    // non-ASCII character then, so the message reads back exactly.
    return hasUnpairedSurrogate(text) ? escaped(o) : text;
  }

  private static final com.fasterxml.jackson.databind.ObjectWriter ASCII =
      JSON.writer().with(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII);

  private static String escaped(ObjectNode o) {
    try {
      return ASCII.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new ChatStoreException("cannot write a message as JSON: " + e.getOriginalMessage());
    }
  }

  static boolean hasUnpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return true;
        }
      } else if (Character.isLowSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  static Message read(String text) {
    JsonNode o;
    try {
      o = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new ChatStoreException("stored message is not valid JSON: " + e.getOriginalMessage());
    }
    Message.Builder b =
        Message.builder(Role.parse(o.path("role").asText()))
            .id(MessageId.of(o.path("id").asText()))
            .content(o.path("content").asText(""))
            .toolCallId(o.hasNonNull("tool_call_id") ? o.get("tool_call_id").asText() : null)
            .timestamp(
                o.hasNonNull("timestamp") ? Instant.parse(o.get("timestamp").asText()) : null)
            .pinned(o.path("pinned").asBoolean(false))
            .hidden(o.path("hidden").asBoolean(false))
            .uiOnly(o.path("ui_only").asBoolean(false));
    List<ReasoningBlock> reasoning = new ArrayList<>();
    for (JsonNode r : o.path("reasoning")) {
      reasoning.add(
          new ReasoningBlock(
              r.path("type").asText(),
              r.path("text").asText(""),
              r.hasNonNull("signature") ? r.get("signature").asText() : null));
    }
    b.reasoning(reasoning);
    List<ToolCall> calls = new ArrayList<>();
    for (JsonNode c : o.path("tool_calls")) {
      calls.add(
          new ToolCall(
              c.path("id").asText(), c.path("name").asText(""), c.path("arguments").asText("")));
    }
    b.toolCalls(calls);
    JsonNode meta = o.get("metadata");
    if (meta != null && meta.isObject()) {
      Usage usage = null;
      JsonNode u = meta.get("usage");
      if (u != null && u.isObject()) {
        usage =
            new Usage(
                u.path("input").asLong(),
                u.path("output").asLong(),
                u.path("cache_read").asLong(),
                u.path("cache_write").asLong(),
                u.path("reasoning").asLong());
      }
      InputFingerprint input = null;
      JsonNode in = meta.get("input");
      if (in != null && in.isObject()) {
        input =
            new InputFingerprint(
                in.path("messages").asInt(), in.path("digest").asText(), in.path("model").asText());
      }
      Map<String, Object> extra = new LinkedHashMap<>();
      JsonNode ex = meta.get("extra");
      if (ex != null && ex.isObject()) {
        @SuppressWarnings("unchecked")
        Map<String, Object> plain = JSON.convertValue(ex, Map.class);
        extra.putAll(plain);
      }
      b.metadata(
          new MessageMetadata(
              meta.hasNonNull("model") ? meta.get("model").asText() : null,
              meta.hasNonNull("provider") ? meta.get("provider").asText() : null,
              usage,
              input,
              extra));
    }
    return b.build();
  }
}
