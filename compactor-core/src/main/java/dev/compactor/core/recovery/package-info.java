/**
 * Overflow recovery: when a provider answers that the prompt does not fit its context window,
 * {@link dev.compactor.core.recovery.OverflowRecovery} shrinks the active view step by step and
 * sends again, for any {@link dev.compactor.core.model.ChatModel}.
 */
package dev.compactor.core.recovery;
