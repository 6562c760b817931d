/**
 * Implementation shared by several packages of compactor-core (today: {@link
 * dev.compactor.core.internal.CompactionApplier}, which turns a strategy's result into the new
 * active view for the automatic, manual and overflow-recovery policies). Not API: may change
 * without notice, and an architecture test keeps every other module out of it.
 */
package dev.compactor.core.internal;
