/**
 * Tool definitions ({@link dev.compactor.core.model.ToolSpec}) in each provider's request shape.
 */
package dev.compactor.wire.tools;
