package dev.compactor.log.imports;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * An ordered set of {@link Importer}s with unique names: detects a source's format and reads it.
 *
 * <p>Detection asks every importer; those that match are tried from the most confident (ties in
 * registration order) until one reads the source. When none matches or every match fails to read,
 * an {@link ImportException} lists every format and its reason.
 *
 * <p>Immutable and thread-safe; {@link #with} returns a new registry.
 *
 * <pre>{@code
 * ImporterRegistry registry = ImporterRegistry.defaults();
 * ImportResult auto = registry.read(Path.of("conversation.jsonl"));
 * ImportResult forced = registry.read(Path.of("chat.json"), "openai-chat");
 * }</pre>
 */
public final class ImporterRegistry {
  private final List<Importer> importers;

  private ImporterRegistry(List<Importer> importers) {
    this.importers = List.copyOf(importers);
  }

  /** The built-in importers only. */
  public static ImporterRegistry builtIns() {
    return new ImporterRegistry(
        List.of(
            new NativeImporter(),
            new ClaudeCodeImporter(),
            new GptmeImporter(),
            new TauBenchImporter(),
            new MiniSweAgentImporter(),
            new SweAgentImporter(),
            new AnthropicMessagesImporter(),
            new OpenAiChatImporter()));
  }

  /**
   * The built-in importers plus those found by {@link ServiceLoader} on the class path ({@code
   * META-INF/services/dev.compactor.log.imports.Importer}).
   *
   * @throws IllegalArgumentException when a discovered importer's name is already taken
   */
  public static ImporterRegistry defaults() {
    ImporterRegistry r = builtIns();
    for (Importer i : ServiceLoader.load(Importer.class, ImporterRegistry.class.getClassLoader())) {
      r = r.with(i);
    }
    return r;
  }

  /** A registry of exactly these importers, in this order. */
  public static ImporterRegistry of(Importer... importers) {
    ImporterRegistry r = new ImporterRegistry(List.of());
    for (Importer i : importers) {
      r = r.with(i);
    }
    return r;
  }

  /**
   * This registry plus {@code importer}, last in order.
   *
   * @throws IllegalArgumentException when an importer with that name is already registered
   */
  public ImporterRegistry with(Importer importer) {
    Objects.requireNonNull(importer, "importer");
    String name = importer.name();
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "importer " + importer.getClass().getName() + " has no name");
    }
    if (find(name).isPresent()) {
      throw new IllegalArgumentException(
          "an importer named \""
              + name
              + "\" is already registered ("
              + find(name).get().getClass().getName()
              + "); cannot add "
              + importer.getClass().getName());
    }
    List<Importer> l = new ArrayList<>(importers);
    l.add(importer);
    return new ImporterRegistry(l);
  }

  /** The format names, in registration order. */
  public List<String> names() {
    return importers.stream().map(Importer::name).toList();
  }

  /** The importer of that format, if registered. */
  public Optional<Importer> find(String name) {
    return importers.stream().filter(i -> i.name().equals(name)).findFirst();
  }

  /**
   * The importer of that format.
   *
   * @throws ImportException naming the known formats when there is none
   */
  public Importer get(String name) {
    return find(name)
        .orElseThrow(
            () ->
                new ImportException(
                    "unknown import format \""
                        + name
                        + "\" (known: "
                        + String.join(", ", names())
                        + ")"));
  }

  /**
   * Reads a file, detecting its format.
   *
   * @throws ImportException when no format fits, listing each format and why; or when the file
   *     cannot be read
   */
  public ImportResult read(Path file) {
    return read(open(file));
  }

  /**
   * Reads a file in the given format, without detection.
   *
   * @throws ImportException when the format is unknown, does not fit, or the file cannot be read
   */
  public ImportResult read(Path file, String format) {
    return read(open(file), format);
  }

  /**
   * Reads a source, detecting its format.
   *
   * @throws ImportException when no format fits, listing each format and why
   */
  public ImportResult read(ImportSource source) {
    Map<String, String> attempts = new LinkedHashMap<>();
    List<Importer> matched = new ArrayList<>();
    Map<Importer, Detection> detections = new LinkedHashMap<>();
    for (Importer i : importers) {
      Detection d;
      try {
        d = i.detect(source);
      } catch (IOException | UncheckedIOException e) {
        d = Detection.reject("cannot read the source: " + why(e));
      } catch (RuntimeException e) {
        d = Detection.reject("detection failed: " + why(e));
      }
      detections.put(i, d);
      if (d.matches()) {
        matched.add(i);
      } else {
        attempts.put(i.name(), d.reason());
      }
    }
    matched.sort(Comparator.comparingInt((Importer i) -> -detections.get(i).confidence()));
    Throwable cause = null;
    for (Importer i : matched) {
      try {
        return new ImportResult(i.name(), source.name(), i.read(source));
      } catch (IOException | UncheckedIOException | ImportException e) {
        cause = e;
        attempts.put(
            i.name(),
            "looked like it ("
                + detections.get(i).reason()
                + ") but reading failed: "
                + (e instanceof ImportException ? e.getMessage() : why(e)));
      } catch (RuntimeException e) {
        cause = e;
        attempts.put(
            i.name(),
            "looked like it (" + detections.get(i).reason() + ") but reading failed: " + why(e));
      }
    }
    Map<String, String> ordered = new LinkedHashMap<>();
    for (Importer i : importers) {
      ordered.put(i.name(), attempts.get(i.name()));
    }
    StringBuilder sb = new StringBuilder();
    sb.append("cannot import ").append(source).append(": ");
    sb.append(matched.isEmpty() ? "it is in none of the known formats" : "no format could read it");
    sb.append(" (tried ").append(ordered.size()).append(')');
    ordered.forEach((k, v) -> sb.append("\n  ").append(k).append(": ").append(v));
    throw new ImportException(sb.toString(), ordered, cause);
  }

  /**
   * Reads a source in the given format, without detection.
   *
   * @throws ImportException when the format is unknown or does not fit
   */
  public ImportResult read(ImportSource source, String format) {
    Importer i = get(format);
    try {
      return new ImportResult(i.name(), source.name(), i.read(source));
    } catch (IOException | RuntimeException e) {
      String why = e instanceof ImportException ? e.getMessage() : why(e);
      String detection;
      try {
        Detection d = i.detect(source);
        detection = d.matches() ? "" : " (detection says: " + d.reason() + ")";
      } catch (IOException | RuntimeException e2) {
        detection = "";
      }
      throw new ImportException(
          "cannot import " + source + " as " + format + ": " + why + detection,
          Map.of(format, why),
          e);
    }
  }

  /**
   * What went wrong reading a source, in words ("no such file", "permission denied", …): no
   * exception class names.
   */
  public static String why(Throwable e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.util.zip.ZipException) {
      return "broken gzip data (" + e.getMessage() + ")";
    }
    if (e instanceof java.io.EOFException) {
      return "the content ends early (truncated)";
    }
    String m = e.getMessage();
    return m == null || m.isBlank() ? "unexpected error (" + e.getClass().getSimpleName() + ")" : m;
  }

  private static ImportSource open(Path file) {
    try {
      return ImportSource.of(file);
    } catch (IOException e) {
      throw new ImportException("cannot import " + file + ": cannot open it: " + why(e), e);
    }
  }
}
