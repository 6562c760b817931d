package dev.compactor.testkit.model;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A request as {@link FakeModelServer} received it.
 *
 * @param method the HTTP method
 * @param path the request path, e.g. {@code /v1/chat/completions}
 * @param headers header names lower-cased, first value of each
 * @param body the body as sent
 * @param format the wire format the path selects, or null for any other path
 * @param rejection why the server refused the request as the provider would (the error message it
 *     sent), or null when it was accepted
 */
public record RecordedRequest(
    String method,
    String path,
    Map<String, String> headers,
    String body,
    WireFormat format,
    String rejection) {
  /** Decimals stay exact ({@code BigDecimal}), so a body can be compared with a golden file. */
  private static final ObjectMapper JSON =
      JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  public RecordedRequest {
    headers = Map.copyOf(headers);
  }

  /** The body as JSON, decimals as {@code BigDecimal} ({@link MissingNode} when it is not JSON). */
  public JsonNode json() {
    try {
      JsonNode n = JSON.readTree(body);
      return n == null ? MissingNode.getInstance() : n;
    } catch (IOException e) {
      return MissingNode.getInstance();
    }
  }

  /** A header's first value ({@code name} in any case). */
  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Whether the server refused the request. */
  public boolean rejected() {
    return rejection != null;
  }

  /** Whether the request asked for an event stream. */
  public boolean streaming() {
    return json().path("stream").asBoolean(false);
  }

  /** The {@code model} field. */
  public String model() {
    return json().path("model").asText(null);
  }

  /**
   * The conversation sent: the {@code messages} array (Chat Completions, Anthropic) or the {@code
   * input} items (Responses; a string input is one user item).
   */
  public List<JsonNode> items() {
    JsonNode j = json();
    JsonNode arr = format == WireFormat.RESPONSES ? j.path("input") : j.path("messages");
    List<JsonNode> out = new ArrayList<>();
    if (arr.isTextual()) {
      out.add(JSON.createObjectNode().put("role", "user").put("content", arr.asText()));
    } else {
      arr.forEach(out::add);
    }
    return out;
  }

  /**
   * The system prompt: Anthropic's {@code system}, Responses' {@code instructions}, or the text of
   * the leading Chat Completions {@code system} / {@code developer} messages; empty when none.
   */
  public String system() {
    JsonNode j = json();
    if (format == WireFormat.ANTHROPIC_MESSAGES) {
      return Texts.of(j.path("system"));
    }
    StringBuilder sb = new StringBuilder();
    if (format == WireFormat.RESPONSES) {
      sb.append(j.path("instructions").asText(""));
    }
    for (JsonNode i : items()) {
      String role = i.path("role").asText();
      if (role.equals("system") || role.equals("developer")) {
        if (sb.length() > 0) {
          sb.append("\n\n");
        }
        sb.append(Texts.of(i.path("content")));
      }
    }
    return sb.toString();
  }

  /** The text of the last item with role {@code user}, or null. */
  public String lastUserText() {
    String last = null;
    for (JsonNode i : items()) {
      if ("user".equals(i.path("role").asText())) {
        last = Texts.of(i.path("content"));
      }
    }
    return last;
  }

  /**
   * Every item in order as {@code "role: text"}; items without a role as {@code "type: call_id"}
   * (Responses {@code function_call} and {@code function_call_output}).
   */
  public List<String> texts() {
    List<String> out = new ArrayList<>();
    if (format == WireFormat.RESPONSES && json().has("instructions")) {
      out.add("system: " + json().get("instructions").asText());
    }
    if (format == WireFormat.ANTHROPIC_MESSAGES && json().has("system")) {
      out.add("system: " + Texts.of(json().get("system")));
    }
    for (JsonNode i : items()) {
      if (i.has("role")) {
        out.add(i.get("role").asText() + ": " + Texts.of(i.path("content")));
      } else {
        out.add(i.path("type").asText() + ": " + i.path("call_id").asText());
      }
    }
    return out;
  }
}
