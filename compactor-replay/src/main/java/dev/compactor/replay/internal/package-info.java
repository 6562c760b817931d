/**
 * Implementation shared by several packages of compactor-replay: {@link
 * dev.compactor.replay.internal.Facts}, the identifiers of a message that needed-fact recall is
 * measured on. Not API: may change without notice, and an architecture test keeps every other
 * module out of it.
 */
package dev.compactor.replay.internal;
