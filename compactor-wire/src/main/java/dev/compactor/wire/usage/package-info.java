/** Provider usage objects of every API as {@link dev.compactor.core.message.Usage}. */
package dev.compactor.wire.usage;
