package dev.compactor.core.model;

/**
 * A provider-specific request setting that a {@link ChatRequest} carries without interpreting it,
 * e.g. OpenAI Responses server compaction or Anthropic context management (both defined by
 * compactor-models, beside the clients that send them). A request holds at most one extension per
 * class ({@link ChatRequest#extension}); a client sends the extensions its API honours and rejects
 * a request carrying any other with {@link IllegalArgumentException}, rather than silently dropping
 * it.
 *
 * <p>Implementations are immutable values (records).
 */
public interface RequestExtension {}
