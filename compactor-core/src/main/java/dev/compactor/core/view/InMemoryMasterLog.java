package dev.compactor.core.view;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A {@link MasterLog} held in memory. Not thread-safe. */
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

  @Override
  public int size() {
    return messages.size();
  }

  @Override
  public List<Message> messages() {
    return List.copyOf(messages);
  }
}
