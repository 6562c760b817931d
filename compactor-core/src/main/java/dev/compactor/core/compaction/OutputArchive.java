package dev.compactor.core.compaction;

import dev.compactor.core.message.Message;

/**
 * Where a strategy saves content it removes from a view, so that a person or the model can get it
 * back (the counterpart of gptme's {@code logdir}). The on-disk conversation store implements it by
 * writing {@code tool-outputs/} files and naming the master message's byte range; the returned text
 * goes into the stub that replaces the content.
 *
 * <p>Implementations must be thread-safe, and what they save durable before returning or, in a
 * store of views, at the latest before a view naming it is committed (the conversation store
 * flushes the saves of a compaction together, when its view is committed).
 */
public interface OutputArchive {

  /**
   * Saves removed content of a master message.
   *
   * @param source the message the content came from (a master message)
   * @param content the text removed from the view
   * @return a short recovery reference to print in the stub, e.g. {@code "Full output saved to:
   *     /x/tool-outputs/...txt; master message m00042 (bytes 1200-5400 of conversation.jsonl)"}
   */
  String save(Message source, String content);

  /** An archive that saves nothing and names the master message id only. */
  OutputArchive NONE = (source, content) -> "master message " + source.id();
}
