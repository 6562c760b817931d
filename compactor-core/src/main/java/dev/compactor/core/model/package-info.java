/**
 * The provider-neutral model-call API: {@link dev.compactor.core.model.ChatModel}, its request and
 * response values, streaming callbacks, provider compaction data and the exception family of model
 * calls. What a provider's error means (an overflow, a retryable failure) is decided by the clients
 * of {@code compactor-models}.
 *
 * <p>Plain Java only: the HTTP clients that implement {@code ChatModel} live in {@code
 * compactor-models}.
 */
package dev.compactor.core.model;
