/**
 * Importers of foreign conversation transcripts: gptme {@code conversation.jsonl}, Claude Code
 * session JSONL, OpenAI chat message arrays (plain, request bodies, tau-bench, mini-swe-agent and
 * SWE-agent trajectories) and Anthropic Messages JSON.
 *
 * <p>Start with {@link dev.compactor.log.imports.Importers#read(java.nio.file.Path)}: it detects
 * the format (gzip by magic bytes, transparently), and returns an {@link
 * dev.compactor.log.imports.ImportResult} of one or more conversations, each a message list that
 * passes {@link dev.compactor.core.view.ViewValidator} plus notes on what was skipped, merged or
 * repaired. A new format is one more {@link dev.compactor.log.imports.Importer}, registered with
 * {@link dev.compactor.log.imports.ImporterRegistry#with} or through {@code
 * META-INF/services/dev.compactor.log.imports.Importer}.
 *
 * <p>Importing only reads its source.
 */
package dev.compactor.log.imports;
