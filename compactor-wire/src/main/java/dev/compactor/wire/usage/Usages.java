package dev.compactor.wire.usage;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Usage;
import dev.compactor.wire.json.Json;

/**
 * Provider usage objects as {@link Usage}: the one reader of every usage shape.
 *
 * <ul>
 *   <li>OpenAI Chat Completions: {@code prompt_tokens} includes the cached tokens ({@code
 *       prompt_tokens_details.cached_tokens}, or DeepSeek's {@code prompt_cache_hit_tokens}) and
 *       the cache writes ({@code prompt_tokens_details.cache_write_tokens}); {@code
 *       completion_tokens} includes {@code completion_tokens_details.reasoning_tokens}.
 *   <li>OpenAI Responses: the same with {@code input_tokens}, {@code input_tokens_details}, {@code
 *       output_tokens}, {@code output_tokens_details}.
 *   <li>Anthropic Messages: {@code input_tokens} is uncached; {@code cache_read_input_tokens} and
 *       {@code cache_creation_input_tokens} apart. gptme's stored usage ({@code cache_read_tokens},
 *       {@code cache_creation_tokens}, {@code reasoning_tokens}) has the same meaning.
 * </ul>
 *
 * <p>Counts may be numbers or numeric strings; negative counts read as 0. Stateless.
 */
public final class Usages {
  private Usages() {}

  /**
   * Any of the shapes above, told apart by their fields; null when {@code node} is not an object or
   * holds no token counts.
   */
  public static Usage parse(JsonNode node) {
    if (node == null || !node.isObject()) {
      return null;
    }
    if (Json.count(node, "prompt_tokens") >= 0) {
      return chatCompletions(node);
    }
    if (Json.count(node, "input_tokens") < 0 && Json.count(node, "output_tokens") < 0) {
      return null;
    }
    JsonNode details = node.get("input_tokens_details");
    if (details != null && details.isObject()) {
      return responses(node);
    }
    return anthropic(node);
  }

  /** A Chat Completions usage object; null when {@code u} is not an object. */
  public static Usage chatCompletions(JsonNode u) {
    if (u == null || !u.isObject()) {
      return null;
    }
    JsonNode d = u.get("prompt_tokens_details");
    long cached = Json.count(d, "cached_tokens");
    if (cached < 0) {
      cached = Json.count(u, "prompt_cache_hit_tokens");
    }
    return openAiStyle(u, "prompt_tokens", "completion_tokens", Math.max(0, cached));
  }

  /** A Responses usage object; null when {@code u} is not an object. */
  public static Usage responses(JsonNode u) {
    if (u == null || !u.isObject()) {
      return null;
    }
    return openAiStyle(
        u,
        "input_tokens",
        "output_tokens",
        Json.countOrZero(u.get("input_tokens_details"), "cached_tokens"));
  }

  private static Usage openAiStyle(JsonNode u, String inputField, String outputField, long cached) {
    long input = Json.countOrZero(u, inputField);
    long write = Json.countOrZero(u.get(inputField + "_details"), "cache_write_tokens");
    return new Usage(
        Math.max(0, input - cached - write),
        Json.countOrZero(u, outputField),
        cached,
        write,
        Json.countOrZero(u.get(outputField + "_details"), "reasoning_tokens"));
  }

  /** An Anthropic (or gptme) usage object; null when {@code u} is not an object. */
  public static Usage anthropic(JsonNode u) {
    if (u == null || !u.isObject()) {
      return null;
    }
    return new Usage(
        Json.countOrZero(u, "input_tokens"),
        Json.countOrZero(u, "output_tokens"),
        first(u, "cache_read_input_tokens", "cache_read_tokens"),
        first(u, "cache_creation_input_tokens", "cache_creation_tokens"),
        Json.countOrZero(u, "reasoning_tokens"));
  }

  /** The sum of Anthropic {@code usage.iterations} of type {@code compaction}, or null. */
  public static Usage anthropicCompaction(JsonNode u) {
    JsonNode it = u == null ? null : u.get("iterations");
    if (it == null || !it.isArray()) {
      return null;
    }
    Usage sum = null;
    for (JsonNode i : it) {
      if ("compaction".equals(Json.text(i, "type"))) {
        Usage one = anthropic(i);
        sum =
            sum == null
                ? one
                : new Usage(
                    sum.input() + one.input(),
                    sum.output() + one.output(),
                    sum.cacheRead() + one.cacheRead(),
                    sum.cacheWrite() + one.cacheWrite(),
                    sum.reasoning() + one.reasoning());
      }
    }
    return sum;
  }

  private static long first(JsonNode node, String a, String b) {
    long v = Json.count(node, a);
    return v >= 0 ? v : Json.countOrZero(node, b);
  }
}
