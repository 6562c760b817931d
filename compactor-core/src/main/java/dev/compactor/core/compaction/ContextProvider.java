package dev.compactor.core.compaction;

import dev.compactor.core.message.Message;
import java.util.List;

/**
 * A context compression strategy: the plugin interface of the compaction engine.
 *
 * <p>Contract every implementation keeps (checked by the reusable contract test suite): the
 * result's messages keep roles, order and timestamps; every tool result keeps its call and every
 * call its results (parallel results stay together); the result is valid under {@link
 * dev.compactor.core.view.ViewValidator}; a message whose content changes gets a new id and its
 * {@link CompactionResult#provenance() provenance} says which source messages it stands for; the
 * input list is not modified. Implementations must be thread-safe (they are shared through the
 * {@link ProviderRegistry}).
 *
 * <p>Found by name through {@link ProviderRegistry}: either discovered with {@link
 * java.util.ServiceLoader} (list the class in {@code
 * META-INF/services/dev.compactor.core.compaction.ContextProvider}, or {@code provides} in {@code
 * module-info}) or registered programmatically.
 *
 * <pre>{@code
 * ContextProvider p = ProviderRegistry.global().get("trim");
 * CompressionConfig cfg = CompressionConfig.builder().limit(100_000).build();
 * if (p.shouldCompress(messages, cfg)) {
 *   CompactionResult r = p.compress(messages, cfg);
 *   send(r.messages());
 * }
 * }</pre>
 */
public interface ContextProvider {

  /** Unique name used for registration and lookup, e.g. {@code trim}. */
  String name();

  /**
   * Whether {@link #compress} should run on these messages now.
   *
   * @param messages the active view's messages, oldest first; not modified
   * @param config limit and options; {@code config.limit() == null} disables the automatic check of
   *     the built-in providers (they return false)
   */
  boolean shouldCompress(List<Message> messages, CompressionConfig config);

  /**
   * Compresses the messages. Returns a complete list (never a lazy view), which may be the input
   * unchanged when there is nothing to do.
   *
   * @param messages the active view's messages, oldest first; not modified
   * @param config limit and options
   * @throws dev.compactor.core.CompactorException when compression fails; the caller keeps the
   *     current view
   */
  CompactionResult compress(List<Message> messages, CompressionConfig config);
}
