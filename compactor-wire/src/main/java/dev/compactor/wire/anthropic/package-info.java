/**
 * The Anthropic Messages shapes: request messages and their content blocks ({@link
 * dev.compactor.wire.anthropic.AnthropicMessages}, {@link
 * dev.compactor.wire.anthropic.AnthropicContent}), both directions.
 */
package dev.compactor.wire.anthropic;
