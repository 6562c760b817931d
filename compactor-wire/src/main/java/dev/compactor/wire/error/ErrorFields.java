package dev.compactor.wire.error;

/**
 * What a provider error body said, already pulled out of its JSON ({@link ErrorBodies}).
 *
 * @param message the error message, or null
 * @param type the error type, or null
 * @param code the error code as text, or null
 * @param promptTokens a numeric prompt size field (llama.cpp's {@code n_prompt_tokens}), or null
 * @param contextWindow a numeric window field (llama.cpp's {@code n_ctx}), or null
 */
public record ErrorFields(
    String message, String type, String code, Long promptTokens, Long contextWindow) {
  public static final ErrorFields NONE = new ErrorFields(null, null, null, null, null);
}
