package dev.compactor.wire.golden;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.compactor.core.message.Message;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.json.MessageCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Golden files under {@code src/test/resources/golden}. Run a test with {@code -Dgolden.write=true}
 * to (re)write the expected files from the current output; review the diff before committing it.
 */
public final class Golden {
  private Golden() {}

  private static final MessageCodec CODEC = new MessageCodec();

  public static JsonNode json(String name) {
    try {
      return Json.parse(text(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String text(String name) {
    try (InputStream in = Golden.class.getResourceAsStream("/golden/" + name)) {
      if (in == null) {
        throw new AssertionError(
            "golden file " + name + " is missing; run with -Dgolden.write=true to write it");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Messages as native JSON lines, one per line. */
  public static String nativeLines(List<Message> messages) {
    return messages.stream().map(CODEC::writeLine).collect(Collectors.joining("\n", "", "\n"));
  }

  /** A JSON value pretty-printed, as golden files hold it. */
  public static String pretty(JsonNode node) {
    try {
      return Json.MAPPER.writer(SerializationFeature.INDENT_OUTPUT).writeValueAsString(node) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Asserts that {@code actual} is the content of golden file {@code name}. */
  public static void assertMatches(String name, String actual) {
    if (Boolean.getBoolean("golden.write")) {
      try {
        Path p = Path.of("src/test/resources/golden", name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, actual, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return;
    }
    assertThat(actual).as("golden file " + name).isEqualTo(text(name));
  }
}
