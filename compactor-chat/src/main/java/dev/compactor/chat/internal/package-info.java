/**
 * Implementation shared by several packages of compactor-chat: {@link
 * dev.compactor.chat.internal.SummaryCompactor}, which selects, summarizes and replaces the older
 * messages of a chat for the summary compaction, and {@link dev.compactor.chat.internal.Reasons},
 * the {@code reason} values of the compaction report (listed in {@code docs/chat-tasks.md}). Not
 * API: may change without notice, and an architecture test keeps every other module out of it.
 */
package dev.compactor.chat.internal;
