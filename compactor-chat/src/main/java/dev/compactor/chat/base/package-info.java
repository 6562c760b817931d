/**
 * The chat tasks' shared vocabulary, at the bottom of the module: a chat's key, the error a call
 * fails with, a model call's usage and cost, and the compaction details of a call. Every other
 * package of {@code compactor-chat} may use these; this package uses none of them.
 */
package dev.compactor.chat.base;
