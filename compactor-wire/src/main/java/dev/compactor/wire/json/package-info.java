/**
 * The native JSON form of messages ({@link dev.compactor.wire.json.MessageCodec}), used by the
 * on-disk log, the chat store and the importers, and the JSON tree helpers ({@link
 * dev.compactor.wire.json.Json}) every provider shape of this module is read and written with.
 */
package dev.compactor.wire.json;
