/**
 * Provider error bodies and error stream events, read into {@link
 * dev.compactor.wire.error.ErrorFields}.
 */
package dev.compactor.wire.error;
