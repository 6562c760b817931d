package dev.compactor.chat;

import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.core.CompactorException;
import dev.compactor.core.model.ChatModel;

/** Makes the clients a call needs, turning a bad model name into an error naming its field. */
final class ModelResolver {
  private final ChatModelFactory models;

  ModelResolver(ChatModelFactory models) {
    this.models = models;
  }

  /**
   * The client for {@code name}.
   *
   * @param field the request field the name came from, for the error
   */
  ChatModel create(String name, String field) {
    try {
      return models.create(name);
    } catch (ChatTaskException e) {
      throw e;
    } catch (CompactorException | IllegalArgumentException e) {
      throw new ChatTaskException(
          Code.INVALID_REQUEST, field + " \"" + name + "\": " + e.getMessage(), e);
    }
  }
}
