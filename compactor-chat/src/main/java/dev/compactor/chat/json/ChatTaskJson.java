package dev.compactor.chat.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.ChatDetails;
import dev.compactor.chat.ChatTaskRequest;
import dev.compactor.chat.ChatTaskResult;
import dev.compactor.chat.ChatTaskService.ChatView;
import dev.compactor.chat.ChatTaskService.SummarizeResult;
import dev.compactor.chat.MessageOperation;
import dev.compactor.chat.base.CallUsage;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.chat.base.CompactionDetails;
import dev.compactor.chat.internal.SummaryCompactor;
import dev.compactor.chat.settings.StickySettings;
import dev.compactor.chat.settings.WholeNumbers;
import dev.compactor.chat.store.CallRecord;
import dev.compactor.chat.store.ChatRecord;
import dev.compactor.chat.store.SummaryRecord;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.wire.json.MessageFormatException;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import dev.compactor.wire.tools.ToolDefinitions;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The JSON of chat tasks: the request a client sends, the result, errors, and the stored chat.
 * Field names are snake_case. Parsing is strict: an unknown field, a wrong type or a bad value
 * fails with a {@link ChatTaskException} ({@code invalid_request}, or {@code invalid_settings} for
 * {@code compaction}) naming the field and the value. The shapes are documented in {@code
 * docs/chat-tasks.md}.
 *
 * <p>Stateless, thread-safe.
 */
public final class ChatTaskJson {
  private ChatTaskJson() {}

  /** The mapper used for every chat task document (large strings allowed). */
  public static final ObjectMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private static final Set<String> REQUEST_FIELDS =
      Set.of(
          "messages",
          "message_operation",
          "submit_to_model",
          "model",
          "compaction",
          "stop_on_high_messages",
          "stop_on_high_interactions",
          "tools",
          "max_output_tokens",
          "temperature");

  // ------------------------------------------------------------------ request

  /**
   * Parses a request from JSON text.
   *
   * @throws ChatTaskException code {@code invalid_request} naming what is wrong
   */
  public static ChatTaskRequest parseRequest(String json) {
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw invalid("the request is not valid JSON: " + describe(e));
    }
    return parseRequest(node);
  }

  /**
   * Parses a request.
   *
   * @throws ChatTaskException code {@code invalid_request} naming what is wrong
   */
  public static ChatTaskRequest parseRequest(JsonNode node) {
    if (node == null || !node.isObject()) {
      throw invalid("the request must be a JSON object");
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!REQUEST_FIELDS.contains(f)) {
        throw invalid(
            "unknown request field \""
                + f
                + "\" (known: "
                + String.join(", ", REQUEST_FIELDS.stream().sorted().toList())
                + ")");
      }
    }
    ChatTaskRequest.Builder b = ChatTaskRequest.builder();
    JsonNode messages = node.get("messages");
    if (messages != null && !messages.isNull()) {
      if (!messages.isArray()) {
        throw invalid("messages must be an array, got " + messages);
      }
      List<Message> out = new ArrayList<>();
      int i = 0;
      for (JsonNode m : messages) {
        out.add(parseMessage(m, "messages[" + i++ + "]"));
      }
      b.messages(out);
    }
    JsonNode op = node.get("message_operation");
    if (op != null && !op.isNull()) {
      if (!op.isTextual()) {
        throw invalid("message_operation must be \"append\" or \"set\", got " + op);
      }
      try {
        b.messageOperation(MessageOperation.parse(op.textValue()));
      } catch (IllegalArgumentException e) {
        throw invalid(e.getMessage());
      }
    }
    JsonNode submit = node.get("submit_to_model");
    if (submit != null && !submit.isNull()) {
      if (!submit.isBoolean()) {
        throw invalid("submit_to_model must be true or false, got " + submit);
      }
      b.submitToModel(submit.booleanValue());
    }
    JsonNode model = node.get("model");
    if (model != null && !model.isNull()) {
      if (!model.isTextual() || model.textValue().isBlank()) {
        throw invalid("model must be a provider/model name, got " + model);
      }
      b.model(model.textValue().strip());
    }
    if (node.has("compaction")) {
      b.compaction(node.get("compaction"));
    }
    JsonNode messagesLimit = node.get("stop_on_high_messages");
    if (messagesLimit != null && !messagesLimit.isNull()) {
      if (messagesLimit.isBoolean() && !messagesLimit.booleanValue()) {
        b.stopOnHighMessages(null);
      } else {
        b.stopOnHighMessages(
            positiveInt(messagesLimit, "stop_on_high_messages", "a whole number >= 1 or false"));
      }
    }
    JsonNode interactionsLimit = node.get("stop_on_high_interactions");
    if (interactionsLimit != null && !interactionsLimit.isNull()) {
      b.stopOnHighInteractions(
          positiveInt(interactionsLimit, "stop_on_high_interactions", "a whole number >= 1"));
    }
    JsonNode tools = node.get("tools");
    if (tools != null && !tools.isNull()) {
      b.tools(parseTools(tools));
    }
    JsonNode max = node.get("max_output_tokens");
    if (max != null && !max.isNull()) {
      b.maxOutputTokens(positiveInt(max, "max_output_tokens", "a whole number >= 1"));
    }
    JsonNode temperature = node.get("temperature");
    if (temperature != null && !temperature.isNull()) {
      if (!temperature.isNumber()
          || temperature.doubleValue() < 0
          || temperature.doubleValue() > 2) {
        throw invalid("temperature must be a number from 0 to 2, got " + temperature);
      }
      b.temperature(temperature.doubleValue());
    }
    return b.build();
  }

  private static int positiveInt(JsonNode v, String field, String what) {
    BigInteger n = WholeNumbers.parse(v);
    if (n == null || n.signum() <= 0) {
      throw invalid(field + " must be " + what + ", got " + WholeNumbers.show(v));
    }
    if (n.bitLength() > 31) {
      throw invalid(field + " " + WholeNumbers.show(v) + " is too large");
    }
    return n.intValue();
  }

  /**
   * Parses one message of a request: {@code role} (system, user, assistant, tool), {@code content}
   * (a string or null), optional {@code id}, {@code tool_calls} (assistant; each {@code {"id",
   * "type": "function", "function": {"name", "arguments"}}} or flat {@code {"id", "name",
   * "arguments"}}; arguments a JSON string or object) and {@code tool_call_id} (required on tool
   * messages).
   *
   * @param where the message's place, for errors ({@code messages[3]})
   * @throws ChatTaskException code {@code invalid_request} naming the field
   */
  public static Message parseMessage(JsonNode m, String where) {
    try {
      return ChatCompletionsMessages.decodeStrict(m, where);
    } catch (MessageFormatException e) {
      throw invalid(e.getMessage());
    }
  }

  private static List<ToolSpec> parseTools(JsonNode tools) {
    try {
      return ToolDefinitions.read(tools);
    } catch (MessageFormatException e) {
      throw invalid(e.getMessage());
    }
  }

  private static ChatTaskException invalid(String message) {
    return new ChatTaskException(Code.INVALID_REQUEST, message);
  }

  // ------------------------------------------------------------------ results

  /** The result of a call: {@code message}, {@code usage} and {@code _gpt_chat_details}. */
  public static ObjectNode write(ChatTaskResult r) {
    ObjectNode o = JSON.createObjectNode();
    o.put("tenant", r.key().tenant());
    o.put("chat_id", r.key().chatId());
    if (r.reply() != null) {
      o.set("message", message(r.reply()));
    }
    if (r.usage() != null) {
      o.set("usage", usage(r.usage()));
    }
    o.set("_gpt_chat_details", details(r.details()));
    return o;
  }

  private static ObjectNode details(ChatDetails d) {
    ObjectNode o = JSON.createObjectNode();
    if (d.api() != null) {
      o.put("api", d.api());
    }
    o.put("model", d.model());
    o.put("message_count", d.messageCount());
    o.put("interactions", d.interactions());
    if (d.compaction() != null) {
      o.set("compaction", report(d.compaction()));
    }
    if (d.summaryUsage() != null) {
      o.set("summary_usage", usage(d.summaryUsage()));
    }
    if (d.overflowRetries() != null) {
      o.putObject("overflow_recovery")
          .put("recovered", d.overflowRetries() > 0)
          .put("retries", d.overflowRetries());
    }
    return o;
  }

  /** {@code {"prompt_tokens", "completion_tokens", "total_tokens", …, "cost_usd"}}. */
  public static ObjectNode usage(CallUsage u) {
    ObjectNode o = JSON.createObjectNode();
    o.put("model", u.model());
    o.put("prompt_tokens", u.promptTokens());
    o.put("completion_tokens", u.completionTokens());
    o.put("total_tokens", u.promptTokens() + u.completionTokens());
    o.put("cached_tokens", u.usage().cacheRead());
    o.put("reasoning_tokens", u.usage().reasoning());
    o.put("cost_usd", u.costUsd() == null ? null : u.costUsd().stripTrailingZeros());
    return o;
  }

  /** {@code _gpt_chat_details.compaction}, exactly as the specification shows it. */
  public static ObjectNode report(CompactionDetails r) {
    return r.toJson();
  }

  /**
   * A parse error in words: Jackson's message without its source description (which names a Jackson
   * feature), with the line and column.
   */
  static String describe(com.fasterxml.jackson.core.JsonProcessingException e) {
    String m =
        String.valueOf(e.getOriginalMessage())
            .replaceAll("\\[Source: [^;\\]]*(\\([^)]*\\))?; ", "[");
    var loc = e.getLocation();
    return loc == null
        ? m
        : m + " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
  }

  /** {@code {"error": {"code", "message"}}}, with {@code _gpt_chat_details.compaction} if any. */
  public static ObjectNode error(ChatTaskException e) {
    ObjectNode o = JSON.createObjectNode();
    o.putObject("error").put("code", e.code().wireName()).put("message", e.getMessage());
    e.report().ifPresent(r -> o.putObject("_gpt_chat_details").set("compaction", report(r)));
    return o;
  }

  /** A message in the client's shape (tool calls in the OpenAI {@code function} form). */
  public static ObjectNode message(Message m) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", m.id().value());
    o.put("role", m.role().wireName());
    o.put("content", m.content());
    if (m.hasToolCalls()) {
      ArrayNode calls = o.putArray("tool_calls");
      for (ToolCall c : m.toolCalls()) {
        ObjectNode co = calls.addObject();
        co.put("id", c.id());
        co.put("type", "function");
        co.putObject("function").put("name", c.name()).put("arguments", c.arguments());
      }
    }
    if (m.toolCallId() != null) {
      o.put("tool_call_id", m.toolCallId());
    }
    if (m.timestamp() != null) {
      o.put("timestamp", m.timestamp().toString());
    }
    Object uuid = m.metadata().extra().get(SummaryCompactor.SUMMARY_UUID_KEY);
    if (uuid instanceof String s) {
      o.put("gpt_summary_uuid", s);
    }
    return o;
  }

  /** The result of an on-demand summarization. */
  public static ObjectNode write(SummarizeResult r) {
    ObjectNode o = JSON.createObjectNode();
    o.put("tenant", r.key().tenant());
    o.put("chat_id", r.key().chatId());
    o.put("message_count", r.messageCount());
    o.set("summary", r.report().toJson());
    if (r.usage() != null) {
      o.set("summary_usage", usage(r.usage()));
    }
    return o;
  }

  /**
   * Puts a chat's record into {@code o}: tenant, chat id, model, interactions, last context tokens
   * (null before the first call), created and updated.
   */
  public static void putRecord(ObjectNode o, ChatRecord r) {
    o.put("tenant", r.key().tenant());
    o.put("chat_id", r.key().chatId());
    o.put("model", r.model());
    o.put("interactions", r.interactions());
    o.put("last_context_tokens", r.lastContextTokens());
    o.put("created_at", r.createdAt().toString());
    o.put("updated_at", r.updatedAt().toString());
  }

  /** Puts a chat's {@code settings} into {@code o}: as given and effective. */
  public static void putSettings(ObjectNode o, StickySettings settings) {
    ObjectNode so = o.putObject("settings");
    so.set("given", settings.toNode());
    so.set("effective", StickySettings.effectiveJson(settings.effective()));
  }

  /** A stored chat: record, settings (as given and effective), history, summaries. */
  public static ObjectNode write(ChatView v) {
    ObjectNode o = JSON.createObjectNode();
    putRecord(o, v.record());
    o.put("message_count", v.messages().size());
    o.put("archived_message_count", v.archivedMessages());
    putSettings(o, v.settings());
    ArrayNode messages = o.putArray("messages");
    for (Message m : v.messages()) {
      messages.add(message(m));
    }
    ArrayNode summaries = o.putArray("summaries");
    for (SummaryRecord s : v.summaries()) {
      summaries.add(summary(s));
    }
    return o;
  }

  /** A summary record. */
  public static ObjectNode summary(SummaryRecord s) {
    ObjectNode o = JSON.createObjectNode();
    o.put("gpt_summary_uuid", s.uuid());
    o.put("created_at", s.createdAt().toString());
    o.put("trigger", s.trigger().wireName());
    o.put("model", s.model());
    o.put("message_count_before", s.messageCountBefore());
    o.put("message_count_after", s.messageCountAfter());
    ArrayNode covered = o.putArray("covered_message_ids");
    s.coveredMessageIds().forEach(covered::add);
    o.put("summary_message_id", s.summaryMessageId());
    o.put("summary", s.summaryText());
    o.set("usage", usage(new CallUsage(s.model(), s.usage(), s.costUsd())));
    return o;
  }

  /** A stored chat task call: {@code GET /v1/chats/{id}/calls}. */
  public static ObjectNode call(CallRecord c) {
    ObjectNode o = JSON.createObjectNode();
    o.put("called_at", c.at().toString());
    o.put("model", c.model());
    o.put("api", c.api());
    o.put("submitted", c.submitted());
    o.put("action", c.action().wireName());
    o.put("tokens_before", c.tokensBefore());
    o.put("tokens_after", c.tokensAfter());
    o.put("message_count_before", c.messageCountBefore());
    o.put("message_count_after", c.messageCountAfter());
    o.put("gpt_summary_uuid", c.summaryUuid());
    o.set("compaction", c.compaction() == null ? null : report(c.compaction()));
    return o;
  }

  /** Pretty JSON text of a document. */
  public static String pretty(JsonNode node) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
