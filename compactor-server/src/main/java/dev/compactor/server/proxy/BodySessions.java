package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.wire.json.Json;

/**
 * The session signals some clients put in the request body instead of a header, read when a request
 * carries no {@link SessionHeaders session header} (and no {@code X-Compactor-Conversation}). The
 * first one present wins:
 *
 * <ol>
 *   <li>{@code metadata.user_id} (Anthropic Messages; Claude Code puts its session id in it): the
 *       {@code session_id} of its JSON form ({@code {"device_id":…,"account_uuid":…,
 *       "session_id":…}}, Claude Code 2.1.78 and later), or the part after {@code _session_} of its
 *       older form ({@code user_HASH_account_UUID_session_SESSION}), stored as {@code
 *       metadata.user_id.session_id:SESSION}; any other value is the signal whole, as {@code
 *       metadata.user_id:VALUE};
 *   <li>{@code litellm_session_id} (LiteLLM's session grouping), at the top level of the body or in
 *       its {@code metadata}, as {@code litellm_session_id:VALUE};
 *   <li>{@code prompt_cache_key} (OpenAI Chat Completions and Responses; Codex CLI sets it to its
 *       conversation id), as {@code prompt_cache_key:VALUE}. Last because it is a cache bucket,
 *       which a client may share between sessions (the scope is then only wider).
 * </ol>
 *
 * The values obey the rules of the session headers (up to 200 characters, no control characters,
 * not blank); a value that does not is skipped. The body itself is never changed.
 */
final class BodySessions {
  private static final String SESSION_MARK = "_session_";

  private BodySessions() {}

  /** The session the body names, as {@code NAME:VALUE}, or null when it names none. */
  static String of(JsonNode body) {
    if (body == null || !body.isObject()) {
      return null;
    }
    JsonNode metadata = body.path("metadata");
    JsonNode user = metadata.get("user_id");
    String userId = user != null && user.isTextual() ? claudeCode(user.asText().strip()) : null;
    if (userId != null) {
      return userId;
    }
    String litellm = text(body.get("litellm_session_id"));
    if (litellm == null) {
      litellm = text(metadata.get("litellm_session_id"));
    }
    if (litellm != null) {
      return "litellm_session_id:" + litellm;
    }
    String cacheKey = text(body.get("prompt_cache_key"));
    return cacheKey == null ? null : "prompt_cache_key:" + cacheKey;
  }

  /** The session of a {@code metadata.user_id} value, or null for none. */
  private static String claudeCode(String userId) {
    if (userId.startsWith("{")) {
      JsonNode parsed = Json.tryParse(userId); // null when not JSON after all: the value whole
      String session = parsed == null ? null : text(parsed.get("session_id"));
      if (session != null) {
        return "metadata.user_id.session_id:" + session;
      }
    } else if (userId.startsWith("user_")) {
      int at = userId.lastIndexOf(SESSION_MARK);
      String session =
          at < 0 ? null : SessionHeaders.usable(userId.substring(at + SESSION_MARK.length()));
      if (session != null) {
        return "metadata.user_id.session_id:" + session;
      }
    }
    String whole = SessionHeaders.usable(userId);
    return whole == null ? null : "metadata.user_id:" + whole;
  }

  /** A usable signal value from a JSON string, or null. */
  private static String text(JsonNode v) {
    return v == null || !v.isTextual() ? null : SessionHeaders.usable(v.asText());
  }
}
