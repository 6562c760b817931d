/**
 * The native JSON line format of messages: {@link dev.compactor.log.json.MessageCodec}. Used by the
 * on-disk store and by importers to recognise and read native records.
 */
package dev.compactor.log.json;
