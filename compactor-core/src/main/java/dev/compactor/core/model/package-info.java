/**
 * The provider-neutral model-call API: {@link dev.compactor.core.model.ChatModel}, its request and
 * response values, streaming callbacks, provider compaction data and the exception family of model
 * calls, plus the pure-Java {@link dev.compactor.core.model.OverflowClassifier}.
 *
 * <p>Plain Java only: the HTTP clients that implement {@code ChatModel} live in {@code
 * compactor-models}.
 */
package dev.compactor.core.model;
