package dev.compactor.cli.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.BudgetValue;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One parsed configuration file: its {@code [context]} table and its {@code [models."…"]} tables.
 * Keys Compactor does not know are kept out of the settings and listed in {@link #unknownKeys} with
 * their path (a typo such as {@code [context] budgt} is reported, not silently ignored). Every
 * value read is validated here, so a bad file fails when it is loaded, with a message naming the
 * file and the key.
 *
 * @param path where it was read from
 * @param display the path as shown in messages (e.g. {@code ~/.config/compactor/config.toml})
 * @param context the {@code [context]} table ({@link ContextSection#EMPTY} when absent)
 * @param models the {@code [models]} tables by lower-cased model name, in file order
 * @param unknownKeys keys Compactor does not know, each with its path and the file, e.g. {@code
 *     [context] budgt in ./compactor.toml}
 */
public record ConfigFile(
    Path path,
    String display,
    ContextSection context,
    Map<String, ModelSection> models,
    List<String> unknownKeys) {

  private static final TomlMapper TOML = new TomlMapper();

  public ConfigFile {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(display, "display");
    context = context == null ? ContextSection.EMPTY : context;
    models = models == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(models));
    unknownKeys = unknownKeys == null ? List.of() : List.copyOf(unknownKeys);
  }

  /** A file without unknown keys. */
  public ConfigFile(
      Path path, String display, ContextSection context, Map<String, ModelSection> models) {
    this(path, display, context, models, List.of());
  }

  private static final Set<String> TOP_KEYS = Set.of("context", "models", "server", "upstreams");
  private static final Set<String> CONTEXT_KEYS =
      Set.of("budget", "compact_instructions", "keep_recent_tokens");
  private static final Set<String> MODEL_KEYS =
      Set.of("context_budget", "context_window", "max_output");

  /**
   * Reads and validates a file.
   *
   * @param path the file
   * @param display how to name it in messages
   * @return empty when the file does not exist
   * @throws CompactorException naming the file when it cannot be read or is not valid TOML
   * @throws InvalidSettingException naming the file and key when a value is invalid
   */
  public static Optional<ConfigFile> read(Path path, String display) {
    if (!Files.exists(path)) {
      return Optional.empty();
    }
    String text;
    try {
      text = Files.readString(path);
    } catch (IOException e) {
      throw new CompactorException("cannot read " + display + ": " + e.getMessage(), e);
    }
    return Optional.of(parse(text, path, display));
  }

  /**
   * Parses a file's text (see {@link #read}).
   *
   * @throws CompactorException naming the file when it is not valid TOML
   * @throws InvalidSettingException naming the file and key when a value is invalid
   */
  public static ConfigFile parse(String text, Path path, String display) {
    JsonNode root;
    try {
      root = TOML.readTree(text);
    } catch (JacksonException e) {
      throw new CompactorException("invalid TOML in " + display + ": " + e.getOriginalMessage(), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return new ConfigFile(path, display, ContextSection.EMPTY, Map.of());
    }
    List<String> unknown = new ArrayList<>();
    for (String k : iterable(root)) {
      if (!TOP_KEYS.contains(k)) {
        unknown.add((root.get(k).isObject() ? "[" + k + "]" : k) + " in " + display);
      }
    }
    JsonNode contextNode = table(root, "context", "[context]", display);
    if (contextNode != null) {
      for (String k : iterable(contextNode)) {
        if (!CONTEXT_KEYS.contains(k)) {
          unknown.add("[context] " + k + " in " + display);
        }
      }
    }
    ContextSection context = parseContext(contextNode, display);
    Map<String, ModelSection> models = new LinkedHashMap<>();
    JsonNode modelsNode = table(root, "models", "[models]", display);
    if (modelsNode != null) {
      for (Map.Entry<String, JsonNode> e : modelsNode.properties()) {
        String model = e.getKey().trim().toLowerCase(Locale.ROOT);
        if (model.isEmpty()) {
          throw new CompactorException(
              "[models] in " + display + " has a table with an empty name");
        }
        if (!e.getValue().isObject()) {
          throw new CompactorException(
              "models.\"" + e.getKey() + "\" in " + display + " must be a table");
        }
        for (String k : iterable(e.getValue())) {
          if (!MODEL_KEYS.contains(k)) {
            unknown.add("[models.\"" + e.getKey() + "\"] " + k + " in " + display);
          }
        }
        models.put(model, parseModel(model, e.getValue(), display));
      }
    }
    return new ConfigFile(path, display, context, models, unknown);
  }

  private static ContextSection parseContext(JsonNode t, String display) {
    if (t == null) {
      return ContextSection.EMPTY;
    }
    BudgetSetting budget = budget(t.get("budget"), "[context] budget in " + display);
    String instructions = null;
    JsonNode ci = t.get("compact_instructions");
    if (ci != null) {
      if (!ci.isTextual()) {
        throw new InvalidSettingException(
            "compact instructions",
            ci.toString(),
            "[context] compact_instructions in " + display,
            "must be a string");
      }
      instructions = ci.asText();
    }
    Long keep = null;
    JsonNode k = t.get("keep_recent_tokens");
    if (k != null) {
      String source = "[context] keep_recent_tokens in " + display;
      if (!k.isIntegralNumber() || k.asLong() < 0 || !k.canConvertToLong()) {
        throw new InvalidSettingException(
            "keep recent tokens", raw(k), source, "must be a whole number of tokens >= 0");
      }
      keep = k.asLong();
    }
    return new ContextSection(budget, instructions, keep);
  }

  private static ModelSection parseModel(String model, JsonNode t, String display) {
    BudgetSetting budget =
        budget(t.get("context_budget"), ModelSection.source(model, "context_budget", display));
    Long window = null;
    JsonNode w = t.get("context_window");
    if (w != null) {
      window =
          ModelCatalog.parseContextLength(
              raw(w), ModelSection.source(model, "context_window", display));
    }
    Integer maxOutput = null;
    JsonNode mo = t.get("max_output");
    if (mo != null) {
      String source = ModelSection.source(model, "max_output", display);
      if (!mo.isIntegralNumber() || !mo.canConvertToInt() || mo.asInt() < 0) {
        throw new InvalidSettingException(
            "max output", raw(mo), source, "must be a whole number of tokens >= 0");
      }
      maxOutput = mo.asInt();
    }
    return new ModelSection(model, budget, window, maxOutput, display);
  }

  private static BudgetSetting budget(JsonNode node, String source) {
    if (node == null) {
      return null;
    }
    BudgetSetting setting = new BudgetSetting(raw(node), source);
    BudgetValue.parse(setting.value(), source); // fail now, naming the file and key
    return setting;
  }

  // Numbers and strings as written; other values as TOML-ish text so the message shows them.
  private static String raw(JsonNode node) {
    if (node.isTextual() || node.isNumber()) {
      return node.asText();
    }
    return node.toString();
  }

  private static Iterable<String> iterable(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static JsonNode table(JsonNode root, String key, String label, String display) {
    JsonNode t = root.get(key);
    if (t == null) {
      return null;
    }
    if (!t.isObject()) {
      throw new CompactorException(label + " in " + display + " must be a table");
    }
    return t;
  }
}
