package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Usage;

/**
 * Reads provider-reported usage in the shapes the importers meet: OpenAI Chat Completions ({@code
 * prompt_tokens} includes cached tokens), OpenAI Responses ({@code input_tokens} with {@code
 * input_tokens_details}), Anthropic ({@code input_tokens} is uncached; cache reads and writes
 * apart) and gptme ({@code cache_read_tokens}, {@code cache_creation_tokens}, Anthropic's meaning).
 */
final class Usages {
  private Usages() {}

  /** The usage in {@code node}, or null when it has no token counts. */
  static Usage parse(JsonNode node) {
    if (node == null || !node.isObject()) {
      return null;
    }
    long prompt = Json.count(node, "prompt_tokens");
    if (prompt >= 0) {
      JsonNode pd = node.get("prompt_tokens_details");
      long cached = Json.count(pd, "cached_tokens");
      if (cached < 0) {
        cached = Json.count(node, "prompt_cache_hit_tokens");
      }
      long write = Json.count(pd, "cache_write_tokens");
      cached = Math.max(0, cached);
      write = Math.max(0, write);
      long reasoning = Json.count(node.get("completion_tokens_details"), "reasoning_tokens");
      return new Usage(
          Math.max(0, prompt - cached - write),
          Math.max(0, Json.count(node, "completion_tokens")),
          cached,
          write,
          Math.max(0, reasoning));
    }
    long input = Json.count(node, "input_tokens");
    long output = Json.count(node, "output_tokens");
    if (input < 0 && output < 0) {
      return null;
    }
    input = Math.max(0, input);
    output = Math.max(0, output);
    JsonNode details = node.get("input_tokens_details");
    if (details != null && details.isObject()) {
      long cached = Math.max(0, Json.count(details, "cached_tokens"));
      long write = Math.max(0, Json.count(details, "cache_write_tokens"));
      long reasoning = Json.count(node.get("output_tokens_details"), "reasoning_tokens");
      return new Usage(
          Math.max(0, input - cached - write), output, cached, write, Math.max(0, reasoning));
    }
    long cacheRead = first(node, "cache_read_input_tokens", "cache_read_tokens");
    long cacheWrite = first(node, "cache_creation_input_tokens", "cache_creation_tokens");
    long reasoning = Json.count(node, "reasoning_tokens");
    return new Usage(input, output, cacheRead, cacheWrite, Math.max(0, reasoning));
  }

  private static long first(JsonNode node, String a, String b) {
    long v = Json.count(node, a);
    return v >= 0 ? v : Math.max(0, Json.count(node, b));
  }
}
