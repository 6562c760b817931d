package dev.compactor.models.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Usage;

/**
 * Provider usage objects as {@link Usage}. OpenAI counts cached tokens inside the prompt total, so
 * {@code input} is the total minus cache reads and writes; Anthropic reports them apart.
 */
public final class Usages {
  private Usages() {}

  /**
   * Chat Completions: {@code prompt_tokens} (including {@code
   * prompt_tokens_details.cached_tokens}), {@code completion_tokens}, {@code
   * completion_tokens_details.reasoning_tokens}; null when absent.
   */
  public static Usage chatCompletions(JsonNode u) {
    return openAiStyle(u, "prompt_tokens", "completion_tokens");
  }

  /**
   * Responses: {@code input_tokens} (including {@code input_tokens_details.cached_tokens} and
   * {@code cache_write_tokens}), {@code output_tokens}, {@code
   * output_tokens_details.reasoning_tokens}; null when absent.
   */
  public static Usage responses(JsonNode u) {
    return openAiStyle(u, "input_tokens", "output_tokens");
  }

  /**
   * The OpenAI shape: an input total that includes {@code <input>_details.cached_tokens} and {@code
   * cache_write_tokens}, an output total with {@code <output>_details.reasoning_tokens}.
   */
  private static Usage openAiStyle(JsonNode u, String inputField, String outputField) {
    if (u == null || !u.isObject()) {
      return null;
    }
    long input = nz(Json.count(u, inputField));
    JsonNode d = u.get(inputField + "_details");
    long cached = nz(Json.count(d, "cached_tokens"));
    long write = nz(Json.count(d, "cache_write_tokens"));
    return new Usage(
        Math.max(0, input - cached - write),
        nz(Json.count(u, outputField)),
        cached,
        write,
        nz(Json.count(u.get(outputField + "_details"), "reasoning_tokens")));
  }

  /**
   * Anthropic: {@code input_tokens} (uncached), {@code cache_creation_input_tokens}, {@code
   * cache_read_input_tokens}, {@code output_tokens}; null when absent.
   */
  public static Usage anthropic(JsonNode u) {
    if (u == null || !u.isObject()) {
      return null;
    }
    return new Usage(
        nz(Json.count(u, "input_tokens")),
        nz(Json.count(u, "output_tokens")),
        nz(Json.count(u, "cache_read_input_tokens")),
        nz(Json.count(u, "cache_creation_input_tokens")),
        0);
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
                    0);
      }
    }
    return sum;
  }

  private static long nz(long v) {
    return Math.max(0, v);
  }
}
