/**
 * Text features shared by the built-in compaction strategies and available to plugins: file paths,
 * error words and identifiers found in message text ({@link
 * dev.compactor.core.compaction.text.TextFeatures}), sentence splitting and the extractive sentence
 * score ({@link dev.compactor.core.compaction.text.Sentences}).
 *
 * <p>Everything here is a pure function of its input: deterministic, stateless, thread-safe, and
 * linear in the length of the text.
 */
package dev.compactor.core.compaction.text;
