/**
 * The lossless master log on disk: one directory per conversation, opened as a {@link
 * dev.compactor.log.store.StoredConversation}.
 */
package dev.compactor.log.store;
