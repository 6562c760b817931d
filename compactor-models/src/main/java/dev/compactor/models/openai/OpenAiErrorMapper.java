package dev.compactor.models.openai;

import dev.compactor.models.internal.FieldsErrorMapper;
import dev.compactor.wire.error.ErrorBodies;
import java.util.Collection;

/**
 * Maps errors of OpenAI and OpenAI-compatible servers to the model exception family.
 *
 * <p>Reads the shapes these servers use: OpenAI's {@code {"error":{"message","type","param",
 * "code"}}}, the Responses stream's {@code {"type":"error","code","message"}} (flat or with a
 * nested {@code error}), vLLM's flat {@code {"object":"error","message","type","code":400}} and
 * nested form, llama.cpp's {@code {"error":{"code":400,"type":"exceed_context_size_error",
 * "message","n_prompt_tokens","n_ctx"}}}, Ollama's {@code {"error":{"message",…}}} or {@code
 * {"error":"…"}}, FastAPI's {@code {"detail":"…"}}, and plain-text bodies. Classification follows
 * the shared rules (401/403 → {@link dev.compactor.core.model.AuthenticationException}; overflow →
 * {@link dev.compactor.core.model.ContextOverflowException} with the counts found; 429 → retryable
 * unless {@code insufficient_quota}; 404 about a model → {@link
 * dev.compactor.core.model.UnknownModelException}; 408/409/5xx → retryable; other 4xx →
 * non-retryable). Secrets are redacted from messages and excerpts.
 *
 * <p>Immutable, thread-safe.
 *
 * <pre>{@code
 * ModelException e = new OpenAiErrorMapper("vllm", List.of()).fromHttp(400, body, null, "m", null);
 * }</pre>
 */
final class OpenAiErrorMapper extends FieldsErrorMapper {
  /**
   * @param provider provider name for exceptions ({@code openai}, {@code ollama}, …)
   * @param secrets values to redact (the API key)
   */
  public OpenAiErrorMapper(String provider, Collection<String> secrets) {
    super(provider, secrets, ErrorBodies::openAi);
  }
}
