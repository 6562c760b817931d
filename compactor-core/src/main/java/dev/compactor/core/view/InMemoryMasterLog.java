package dev.compactor.core.view;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A {@link MasterLog} held in memory (also the index of the stored logs). Not thread-safe. */
public final class InMemoryMasterLog implements MasterLog {
  private final List<Message> messages = new ArrayList<>();
  private final Map<MessageId, Integer> index = new HashMap<>();

  public InMemoryMasterLog() {}

  public InMemoryMasterLog(List<Message> initial) {
    initial.forEach(this::append);
  }

  @Override
  public void append(Message message) {
    if (index.putIfAbsent(message.id(), messages.size()) != null) {
      throw new IllegalArgumentException("message id " + message.id() + " is already in the log");
    }
    messages.add(message);
  }

  @Override
  public Optional<Message> get(MessageId id) {
    Integer i = index.get(id);
    return i == null ? Optional.empty() : Optional.of(messages.get(i));
  }

  @Override
  public int indexOf(MessageId id) {
    return index.getOrDefault(id, -1);
  }

  /**
   * The message at {@code index}, in append order.
   *
   * @throws IndexOutOfBoundsException when there is none
   */
  public Message get(int index) {
    return messages.get(index);
  }

  @Override
  public int size() {
    return messages.size();
  }

  @Override
  public List<Message> messages() {
    return List.copyOf(messages);
  }
}
