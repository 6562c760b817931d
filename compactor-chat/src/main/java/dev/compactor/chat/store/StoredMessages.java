package dev.compactor.chat.store;

import dev.compactor.core.message.Message;
import dev.compactor.wire.json.MessageCodec;
import dev.compactor.wire.json.MessageFormatException;

/**
 * The stored form of a message: its native JSON line ({@link MessageCodec#writeStoredLine}), so
 * that reading it back gives an equal message (reasoning blocks with signatures and provider
 * compaction items in {@code metadata.extra} included: they must go back to the provider
 * unchanged). Rows written in the store's earlier layout still read back ({@link
 * MessageCodec#readStoredLine}).
 */
final class StoredMessages {
  private StoredMessages() {}

  private static final MessageCodec CODEC = new MessageCodec();

  static String write(Message m) {
    try {
      return CODEC.writeStoredLine(m);
    } catch (MessageFormatException e) {
      throw new ChatStoreException("message " + m.id() + " cannot be stored: " + e.getMessage(), e);
    }
  }

  static Message read(String text) {
    try {
      return CODEC.readStoredLine(text);
    } catch (MessageFormatException e) {
      throw new ChatStoreException("stored message is not valid: " + e.getMessage(), e);
    }
  }
}
