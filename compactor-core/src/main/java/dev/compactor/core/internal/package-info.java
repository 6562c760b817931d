/**
 * Implementation shared by several packages of compactor-core: {@link
 * dev.compactor.core.internal.CompactionApplier}, which turns a strategy's result into the new
 * active view for the automatic, manual and overflow-recovery policies, and {@link
 * dev.compactor.core.internal.PositiveNumber}, how the catalog and the budget read a number
 * setting. Not API: may change without notice, and an architecture test keeps every other module
 * out of it.
 */
package dev.compactor.core.internal;
