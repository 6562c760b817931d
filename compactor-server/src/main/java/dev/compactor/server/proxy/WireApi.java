package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.wire.Unchanged;
import dev.compactor.wire.anthropic.AnthropicMessages;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import java.util.ArrayList;
import java.util.List;

/**
 * The request formats the proxy compacts, and what it needs of each: the client's <em>items</em> of
 * a body (Chat Completions messages; Anthropic's {@code system} as a leading {@code {"system": …}}
 * item, then its turns), the body rebuilt from other items, decoding items into core messages with
 * the codec of {@code compactor-wire}, encoding a compacted view back into items (unchanged
 * messages as the very JSON the client sent, through the codec's {@code reencode}), and the
 * provider's reply as the client will echo it. Stateless.
 */
enum WireApi {
  /** OpenAI Chat Completions, {@code POST /v1/chat/completions}. */
  CHAT_COMPLETIONS("openai"),
  /** Anthropic Messages, {@code POST /v1/messages}. */
  ANTHROPIC_MESSAGES("anthropic"),
  /** OpenAI Responses, {@code POST /v1/responses} (see {@link ResponsesRequests}). */
  RESPONSES("openai");

  /** Text of the user turn put first when a compacted Anthropic view would start otherwise. */
  static final String LEADING_USER_TEXT = "(Earlier messages of this conversation were compacted.)";

  /** The provider part of catalog model names ({@code openai/…}, {@code anthropic/…}). */
  final String provider;

  WireApi(String provider) {
    this.provider = provider;
  }

  /** A body the proxy cannot read as this format: it is forwarded unchanged. */
  static final class Unreadable extends Exception {
    private static final long serialVersionUID = 1L;

    Unreadable(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The client's items of a request body.
   *
   * @throws Unreadable when the body is not an object with a non-empty array of message objects
   */
  List<JsonNode> items(JsonNode body) throws Unreadable {
    return items(body, 0);
  }

  /**
   * As {@link #items(JsonNode)}, the first {@code checked} elements of {@code messages} known to be
   * message objects with a role already (taken from an earlier body whose items this format read:
   * {@link ParsedBody#taken}), so that only the others are looked at. Ignored for Responses.
   */
  List<JsonNode> items(JsonNode body, int checked) throws Unreadable {
    if (this == RESPONSES) {
      return ResponsesRequests.items(body);
    }
    if (body == null || !body.isObject()) {
      throw new Unreadable("the body is not a JSON object");
    }
    JsonNode messages = body.get("messages");
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw new Unreadable("the body has no non-empty messages array");
    }
    List<JsonNode> out = new ArrayList<>(messages.size() + 1);
    if (this == ANTHROPIC_MESSAGES) {
      JsonNode system = body.get("system");
      if (system != null && !system.isNull()) {
        out.add(Json.object().set("system", system));
      }
    }
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      if (i >= checked && (!m.isObject() || !m.path("role").isTextual())) {
        throw new Unreadable("messages[" + i + "] is not a message object with a role");
      }
      out.add(m);
    }
    return out;
  }

  private static boolean isSystemItem(JsonNode item) {
    return item.isObject() && item.has("system") && !item.has("role");
  }

  /** {@code original} with its conversation replaced by {@code items}. */
  ObjectNode body(JsonNode original, List<JsonNode> items) {
    if (this == RESPONSES) {
      return ResponsesRequests.body(original, items);
    }
    ObjectNode copy = ((ObjectNode) original).deepCopy();
    ArrayNode messages = Json.array();
    int from = 0;
    if (this == ANTHROPIC_MESSAGES) {
      if (!items.isEmpty() && isSystemItem(items.get(0))) {
        copy.set("system", items.get(0).get("system"));
        from = 1;
      } else {
        copy.remove("system");
      }
      for (JsonNode turn : items.subList(from, items.size())) {
        int last = messages.size() - 1;
        if (last >= 0
            && messages.get(last).path("role").asText().equals(turn.path("role").asText())) {
          messages.set(last, merge(messages.get(last), turn));
        } else {
          messages.add(turn);
        }
      }
    } else {
      items.forEach(messages::add);
    }
    // keep the field where the client had it: replace in place
    copy.set("messages", messages);
    if (this == ANTHROPIC_MESSAGES) {
      capBreakpoints(copy);
    }
    return copy;
  }

  /** The most {@code cache_control} breakpoints Anthropic accepts in one request. */
  static final int MAX_BREAKPOINTS = 4;

  /**
   * Keeps an Anthropic body within {@value #MAX_BREAKPOINTS} {@code cache_control} markers: the
   * stored view keeps the markers the client put on its messages when they were the newest, and the
   * client marks its newest messages again, so the two together can hold more. The oldest markers
   * of {@code messages} go first (those of {@code system} and {@code tools} stay): the newest
   * breakpoints cover the longest cached prefix, and a marker is not part of the prefix Anthropic
   * caches, so taking one away leaves the cache hits as they were. The turns changed are copies.
   */
  private static void capBreakpoints(ObjectNode body) {
    int n = breakpoints(body);
    if (n <= MAX_BREAKPOINTS) {
      return;
    }
    ArrayNode messages = (ArrayNode) body.get("messages");
    for (int i = 0; i < messages.size() && n > MAX_BREAKPOINTS; i++) {
      JsonNode turn = messages.get(i);
      if (breakpoints(turn) == 0) {
        continue;
      }
      JsonNode copy = turn.deepCopy();
      n -= unmark(copy, n - MAX_BREAKPOINTS);
      messages.set(i, copy);
    }
  }

  /** Objects of {@code node} carrying a {@code cache_control} marker, at any depth. */
  private static int breakpoints(JsonNode node) {
    int n = node.isObject() && node.hasNonNull(ItemDigests.CACHE_CONTROL) ? 1 : 0;
    for (JsonNode child : node) {
      n += breakpoints(child);
    }
    return n;
  }

  /** Removes at most {@code max} markers of {@code node}, in document order; how many it did. */
  private static int unmark(JsonNode node, int max) {
    int removed = 0;
    if (node.isObject() && node.hasNonNull(ItemDigests.CACHE_CONTROL)) {
      ((ObjectNode) node).remove(ItemDigests.CACHE_CONTROL);
      removed++;
    }
    for (JsonNode child : node) {
      if (removed >= max) {
        break;
      }
      removed += unmark(child, max - removed);
    }
    return removed;
  }

  /** Two turns of one side as one (the content blocks of both). */
  private static JsonNode merge(JsonNode a, JsonNode b) {
    ObjectNode m = Json.object().put("role", a.path("role").asText());
    ArrayNode content = m.putArray("content");
    for (JsonNode t : List.of(a, b)) {
      JsonNode c = t.get("content");
      if (c != null && c.isArray()) {
        c.forEach(content::add);
      } else if (c != null && c.isTextual()) {
        content.addObject().put("type", "text").put("text", c.asText());
      }
    }
    return m;
  }

  /**
   * Items and the messages decoded from them, one message an item ({@link #CHAT_COMPLETIONS}), and
   * whether any of them is an assistant's legacy {@code function_call} (whose id a later {@code
   * function} result takes).
   */
  record DecodedItems(List<JsonNode> items, List<Message> messages, boolean legacyCalls) {}

  /** Whether {@link #decodeContinuing} reads this format. */
  boolean decodesContinuing() {
    return this == CHAT_COMPLETIONS;
  }

  /**
   * The messages of {@code items}, as {@link #decode(List)} gives them, taking those of the leading
   * items that are the very nodes {@code earlier} was decoded from (the next turn of a conversation
   * parsed after the bytes it shares with the previous request: {@link ParsedBody}) and decoding
   * only the rest. In the Chat Completions format only ({@link #decodesContinuing}), where a
   * message is read from its item and position alone (but for a legacy {@code function} result:
   * with a {@code function_call} among the earlier items, everything is decoded).
   *
   * @param earlier what an earlier request decoded, or null
   * @return the messages, with what a later request may take from them
   * @throws Unreadable when the codec skips an item
   */
  DecodedItems decodeContinuing(List<JsonNode> items, DecodedItems earlier) throws Unreadable {
    if (!decodesContinuing()) {
      throw new IllegalStateException(name() + " decodes its items whole");
    }
    int same = 0;
    if (earlier != null && !earlier.legacyCalls()) {
      int max = Math.min(earlier.items().size(), items.size());
      while (same < max && earlier.items().get(same) == items.get(same)) {
        same++;
      }
    }
    ArrayNode rest = Json.array();
    items.subList(same, items.size()).forEach(rest::add);
    ChatCompletionsMessages.Decoded d = ChatCompletionsMessages.decode(rest, "messages", same);
    if (!d.skipped().isEmpty()) {
      throw new Unreadable(String.join("; ", d.skipped()));
    }
    List<Message> messages = new ArrayList<>(items.size());
    messages.addAll(earlier == null ? List.of() : earlier.messages().subList(0, same));
    messages.addAll(d.messages());
    boolean legacy = false; // (an earlier request with one is never taken from)
    for (int i = same; i < items.size() && !legacy; i++) {
      JsonNode call = items.get(i).get("function_call");
      legacy = call != null && call.isObject();
    }
    return new DecodedItems(List.copyOf(items), List.copyOf(messages), legacy);
  }

  /**
   * Core messages of the items (ids {@code msg-<i>}, {@code system}; see {@link #sourceIndex}).
   *
   * @throws Unreadable when the codec skips an item
   */
  List<Message> decode(List<JsonNode> items) throws Unreadable {
    if (this == RESPONSES) {
      return ResponsesRequests.decode(items);
    }
    if (this == CHAT_COMPLETIONS) {
      ArrayNode array = Json.array();
      items.forEach(array::add);
      ChatCompletionsMessages.Decoded d = ChatCompletionsMessages.decode(array, "messages");
      if (!d.skipped().isEmpty()) {
        throw new Unreadable(String.join("; ", d.skipped()));
      }
      return d.messages();
    }
    ObjectNode root = Json.object();
    int from = 0;
    if (!items.isEmpty() && isSystemItem(items.get(0))) {
      root.set("system", items.get(0).get("system"));
      from = 1;
    }
    ArrayNode turns = root.putArray("messages");
    items.subList(from, items.size()).forEach(turns::add);
    AnthropicMessages.Decoded d = AnthropicMessages.decode(root);
    if (!d.skipped().isEmpty()) {
      throw new Unreadable(String.join("; ", d.skipped()));
    }
    return d.messages();
  }

  /** The index of the item a decoded message came from, or -1 (a synthesized message). */
  int sourceIndex(Message m, List<JsonNode> items) {
    String id = m.id().toString();
    boolean system = !items.isEmpty() && isSystemItem(items.get(0));
    if (this == ANTHROPIC_MESSAGES && id.equals("system")) {
      return system ? 0 : -1;
    }
    int n = messageNumber(id, this != CHAT_COMPLETIONS);
    if (n < 0) {
      return -1;
    }
    int i = n + (this == ANTHROPIC_MESSAGES && system ? 1 : 0);
    return i < items.size() ? i : -1;
  }

  /**
   * The number of an id {@code msg-<n>} (with {@code results}, also {@code msg-<n>-result-<m>}), or
   * -1 for any other id or a number beyond {@code int}; what the regular expressions {@code
   * msg-(\d+)} and {@code msg-(\d+)(?:-result-\d+)?} match, without one per message (this runs for
   * every message of every request).
   */
  static int messageNumber(String id, boolean results) {
    if (!id.startsWith("msg-")) {
      return -1;
    }
    int end = digits(id, 4);
    if (end == 4) {
      return -1;
    }
    if (end < id.length()) {
      if (!results || !id.startsWith("-result-", end)) {
        return -1;
      }
      int last = digits(id, end + 8);
      if (last == end + 8 || last != id.length()) {
        return -1;
      }
    }
    try {
      return Integer.parseInt(id, 4, end, 10);
    } catch (NumberFormatException e) {
      return -1; // as Integer.parseInt of the regular expression's group
    }
  }

  /** The end of the run of ASCII digits in {@code s} from {@code from}. */
  private static int digits(String s, int from) {
    int i = from;
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
    }
    return i;
  }

  /**
   * The items to send for a compacted view of messages decoded from {@code items}: every message
   * (Anthropic: every turn) that still says what its source said is that source's JSON, exactly.
   *
   * @throws IllegalArgumentException when the codec cannot write a message of the view
   */
  List<JsonNode> encode(List<Message> view, List<JsonNode> items) {
    if (this == RESPONSES) {
      return ResponsesRequests.encode(view, items);
    }
    List<JsonNode> out = new ArrayList<>();
    if (this == CHAT_COMPLETIONS) {
      for (Message m : view) {
        int i = sourceIndex(m, items);
        ObjectNode o = ChatCompletionsMessages.reencode(m, i < 0 ? null : items.get(i));
        if (o != null) {
          out.add(o);
        }
      }
      return out;
    }
    List<Message> system = view.stream().filter(m -> m.role() == Role.SYSTEM).toList();
    if (!system.isEmpty()) {
      JsonNode s;
      if (system.size() == 1 && sourceIndex(system.get(0), items) == 0) {
        s = AnthropicMessages.reencodeSystem(system.get(0), items.get(0).get("system"));
      } else {
        s =
            Json.NODES.textNode(
                String.join(
                    "\n\n",
                    system.stream().map(Message::content).filter(c -> !c.isEmpty()).toList()));
      }
      out.add(Json.object().set("system", s));
    }
    int firstTurn = out.size();
    List<Message> run = new ArrayList<>();
    String side = null;
    for (Message m : view) {
      if (m.role() == Role.SYSTEM) {
        continue;
      }
      String s = m.role() == Role.ASSISTANT ? "assistant" : "user";
      if (side != null && !side.equals(s)) {
        addTurn(out, run, items);
        run = new ArrayList<>();
      }
      side = s;
      run.add(m);
    }
    if (!run.isEmpty()) {
      addTurn(out, run, items);
    }
    if (out.size() == firstTurn || !"user".equals(out.get(firstTurn).path("role").asText())) {
      ObjectNode lead = Json.object().put("role", "user");
      lead.putArray("content").addObject().put("type", "text").put("text", LEADING_USER_TEXT);
      out.add(firstTurn, lead);
    }
    return out;
  }

  private void addTurn(List<JsonNode> out, List<Message> run, List<JsonNode> items) {
    JsonNode source = null;
    for (Message m : run) {
      int i = sourceIndex(m, items);
      if (i >= 0) {
        source = items.get(i);
        break;
      }
    }
    ObjectNode turn = AnthropicMessages.reencodeTurn(run, source);
    if (turn == null) {
      return;
    }
    int last = out.size() - 1;
    if (last >= 0
        && !isSystemItem(out.get(last))
        && out.get(last).path("role").asText().equals(turn.path("role").asText())) {
      out.set(last, merge(out.get(last), turn));
    } else {
      out.add(turn);
    }
  }

  /** The provider's reply in a JSON response body, as the item the client will echo; or null. */
  JsonNode replyOf(JsonNode response) {
    if (this == RESPONSES) {
      return ResponsesRequests.replyOf(response);
    }
    if (response == null || !response.isObject()) {
      return null;
    }
    if (this == CHAT_COMPLETIONS) {
      JsonNode m = response.path("choices").path(0).path("message");
      return m.isObject() ? m : null;
    }
    JsonNode content = response.get("content");
    if (content == null || !content.isArray()) {
      return null;
    }
    ObjectNode turn = Json.object().put("role", "assistant");
    turn.set("content", content);
    return turn;
  }

  /** Whether a request item is the echo of a stored reply: they say the same to a model. */
  boolean sameMessage(JsonNode reply, JsonNode item) {
    if (this == RESPONSES) {
      return ResponsesRequests.sameMessage(reply, item);
    }
    if (reply == null || item == null || !item.isObject() || isSystemItem(item)) {
      return false;
    }
    try {
      return Unchanged.onTheWire(decode(List.of(reply)), decode(List.of(item)));
    } catch (Unreadable | RuntimeException e) {
      return false;
    }
  }

  /** A collector of the reply streamed in this format's server-sent events. */
  StreamReply streamReply() {
    return switch (this) {
      case CHAT_COMPLETIONS -> new StreamReply.ChatCompletions();
      case ANTHROPIC_MESSAGES -> new StreamReply.Anthropic();
      case RESPONSES -> new StreamReply.Responses();
    };
  }

  /**
   * Why a readable body is still left to the provider, or null: a request whose conversation is
   * stored at the provider, or one asking for the provider's own compaction or context editing.
   */
  String passthroughReason(JsonNode body) {
    if (this == RESPONSES) {
      return ResponsesRequests.passthroughReason(body);
    }
    if (body.has("previous_response_id")) {
      return "a stateful request (previous_response_id)";
    }
    JsonNode cm = body.get("context_management");
    if (cm != null && !cm.isNull()) {
      List<String> edits = new ArrayList<>();
      cm.path("edits").forEach(e -> edits.add(e.path("type").asText("?")));
      return "provider-side context management (context_management"
          + (edits.isEmpty() ? "" : ": " + String.join(", ", edits))
          + ")";
    }
    if (this == ANTHROPIC_MESSAGES) {
      for (JsonNode m : body.path("messages")) {
        for (JsonNode b : m.path("content")) {
          if ("compaction".equals(b.path("type").asText())) {
            return "provider-side compaction (a compaction block in messages)";
          }
        }
      }
    }
    return null;
  }
}
