package dev.compactor.log.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.MessageCodec;
import dev.compactor.wire.json.MessageFormatException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Settings persisted with one conversation, such as an explicit context budget, in {@code
 * settings.json}: a JSON object of string values, e.g. {@code {"context_budget": "0.8"}}. Every
 * change rewrites the file atomically (temp file, fsync, rename), so a crash leaves the old or the
 * new settings, never a mix. A missing file means no settings.
 *
 * <p>Obtained from {@link StoredConversation#settings()}; usable while the conversation is open.
 * Thread-safe.
 */
public final class ConversationSettings {
  static final String FILE = "settings.json";

  private final StoredConversation owner;
  private final MessageCodec codec;
  private final Path file;
  private final TreeMap<String, String> values;

  private ConversationSettings(
      StoredConversation owner, MessageCodec codec, Path file, TreeMap<String, String> values) {
    this.owner = owner;
    this.codec = codec;
    this.file = file;
    this.values = values;
  }

  /**
   * @throws LogFormatException when the file is not a JSON object of scalar values
   */
  static ConversationSettings open(StoredConversation owner, Path file, MessageCodec codec) {
    TreeMap<String, String> values = new TreeMap<>();
    String text;
    try {
      text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      text = null;
    } catch (IOException e) {
      throw new LogIOException(file, "read", e);
    }
    if (text != null && !text.isBlank()) {
      JsonNode root;
      try {
        root = codec.parseLine(text);
      } catch (MessageFormatException e) {
        throw new LogFormatException(file, 0, -1, e.getMessage(), e);
      }
      if (!root.isObject()) {
        throw new LogFormatException(file, 0, -1, "expected a JSON object, got " + root, null);
      }
      for (Map.Entry<String, JsonNode> f : root.properties()) {
        JsonNode v = f.getValue();
        if (v.isNull()) {
          continue;
        }
        if (!v.isValueNode()) {
          throw new LogFormatException(
              file, 0, -1, "setting \"" + f.getKey() + "\" must be a string, got " + v, null);
        }
        values.put(f.getKey(), v.asText());
      }
    }
    return new ConversationSettings(owner, codec, file, values);
  }

  /** The value of a setting, if set. */
  public synchronized Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /**
   * Sets a setting and persists all settings atomically before returning.
   *
   * @throws IllegalArgumentException when the key is blank or the value null
   * @throws LogIOException when the file cannot be written (the setting is then not changed)
   * @throws dev.compactor.core.CompactorException when the conversation is closed
   */
  public synchronized void put(String key, String value) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("setting key must not be blank, got \"" + key + "\"");
    }
    Objects.requireNonNull(value, () -> "value of setting " + key);
    owner.checkOpenForWrites();
    TreeMap<String, String> next = new TreeMap<>(values);
    next.put(key, value);
    write(next);
    values.put(key, value);
  }

  /**
   * Removes a setting (no-op when it is not set) and persists all settings atomically.
   *
   * @throws LogIOException when the file cannot be written (the setting is then kept)
   * @throws dev.compactor.core.CompactorException when the conversation is closed
   */
  public synchronized void remove(String key) {
    owner.checkOpenForWrites();
    if (!values.containsKey(key)) {
      return;
    }
    TreeMap<String, String> next = new TreeMap<>(values);
    next.remove(key);
    write(next);
    values.remove(key);
  }

  /** All settings, sorted by key (a snapshot). */
  public synchronized Map<String, String> asMap() {
    return Collections.unmodifiableSortedMap(new TreeMap<>(values));
  }

  /** The settings file (it may not exist yet). */
  public Path file() {
    return file;
  }

  private void write(TreeMap<String, String> next) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    next.forEach(o::put);
    DurableFiles.writeAtomically(
        file, (codec.formatLine(o) + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
