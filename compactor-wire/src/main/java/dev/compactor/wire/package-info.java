/**
 * The one codec of message shapes. Sub-packages by shape: {@code json} (the native message JSON and
 * the JSON helpers), {@code openai}, {@code anthropic}, {@code usage}, {@code error}. {@link
 * dev.compactor.wire.Unchanged} decides when a decoded message can go out as its source JSON.
 */
package dev.compactor.wire;
