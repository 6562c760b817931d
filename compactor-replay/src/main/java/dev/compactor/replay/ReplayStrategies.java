package dev.compactor.replay;

import dev.compactor.core.CompactorException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Finds {@link ReplayStrategy}s by name. Every strategy is discovered with {@link ServiceLoader}
 * (the built-ins of this module are listed in its own {@code META-INF/services} file, like any
 * plugin's), so a jar on the class path adds strategies without code.
 *
 * <p>Lookup by name fails clearly: an unknown name lists the known ones, two strategies with the
 * same name fail discovery naming both classes, and a strategy that lives in a module that is not
 * on the class path ({@code window}, the LangChain4j peer in {@code compactor-bench}) says how to
 * run it. Immutable and thread-safe.
 *
 * <pre>{@code
 * ReplayStrategy auto = ReplayStrategies.global().get("auto");
 * List<String> names = ReplayStrategies.global().names(); // auto, mask, none, summarize, trim, …
 * }</pre>
 */
public final class ReplayStrategies {

  /** The scorecard's strategies, in the order its table lists them. */
  public static final List<String> SCORECARD =
      List.of(
          "none",
          "window",
          "mask",
          "trim",
          "summarize",
          "auto",
          "auto-fixed",
          "auto-recall",
          "lc4j-compacting");

  /** The name of the LangChain4j peer, which {@code compactor-bench} provides. */
  public static final String WINDOW = "window";

  /** How to run the strategies that live elsewhere, by name. */
  private static final Map<String, String> ELSEWHERE =
      Map.of(
          WINDOW,
          "strategy \"window\" (LangChain4j's TokenWindowChatMemory, the peer we compare with) lives"
              + " in compactor-bench, which is not on the class path. Build the bench jar (mvn"
              + " -pl compactor-bench -am package -DskipTests) and run the replay from it: java -cp"
              + " compactor-bench/target/benchmarks.jar dev.compactor.cli.Main replay --strategy"
              + " window FILE..., or the whole scorecard: java -cp"
              + " compactor-bench/target/benchmarks.jar dev.compactor.bench.Scorecard");

  private static volatile ReplayStrategies global;

  private final Map<String, ReplayStrategy> byName;

  private ReplayStrategies(Map<String, ReplayStrategy> byName) {
    this.byName = Map.copyOf(byName);
  }

  /**
   * The strategies {@link ServiceLoader} finds through the class loader that loaded this class,
   * discovered once.
   *
   * @throws CompactorException when discovery fails (see {@link #discover})
   */
  public static ReplayStrategies global() {
    ReplayStrategies g = global;
    if (g == null) {
      synchronized (ReplayStrategies.class) {
        g = global;
        if (g == null) {
          ClassLoader cl = ReplayStrategies.class.getClassLoader();
          g = discover(cl == null ? ClassLoader.getSystemClassLoader() : cl);
          global = g;
        }
      }
    }
    return g;
  }

  /**
   * The strategies {@link ServiceLoader} finds through {@code loader}.
   *
   * @throws CompactorException when two strategies have the same name (naming both classes), a name
   *     is blank or has whitespace, or a listed class cannot be loaded
   */
  public static ReplayStrategies discover(ClassLoader loader) {
    Objects.requireNonNull(loader, "class loader");
    List<ReplayStrategy> found = new ArrayList<>();
    try {
      for (ReplayStrategy s : ServiceLoader.load(ReplayStrategy.class, loader)) {
        found.add(s);
      }
    } catch (ServiceConfigurationError e) {
      throw new CompactorException(
          "cannot load a replay strategy listed for ServiceLoader: " + e.getMessage(), e);
    }
    return of(found);
  }

  /**
   * A registry of exactly these strategies.
   *
   * @throws CompactorException on a duplicate or invalid name
   */
  public static ReplayStrategies of(List<? extends ReplayStrategy> strategies) {
    Map<String, ReplayStrategy> byName = new LinkedHashMap<>();
    for (ReplayStrategy s : strategies) {
      String name = s.name();
      if (name == null || name.isBlank() || name.codePoints().anyMatch(Character::isWhitespace)) {
        throw new CompactorException(
            "replay strategy "
                + s.getClass().getName()
                + " has an invalid name "
                + (name == null ? "null" : "\"" + name + "\"")
                + ": a name must be non-empty and contain no whitespace");
      }
      ReplayStrategy old = byName.putIfAbsent(name, s);
      if (old != null) {
        throw new CompactorException(
            "duplicate replay strategy name \""
                + name
                + "\": "
                + old.getClass().getName()
                + " and "
                + s.getClass().getName()
                + "; remove one from the class path");
      }
    }
    return new ReplayStrategies(byName);
  }

  /**
   * The strategy of this name.
   *
   * @throws CompactorException when there is none: the message lists the known names, or says how
   *     to run a strategy that lives in another module
   */
  public ReplayStrategy get(String name) {
    ReplayStrategy s = name == null ? null : byName.get(name);
    if (s != null) {
      return s;
    }
    String hint = name == null ? null : ELSEWHERE.get(name);
    if (hint != null) {
      throw new CompactorException(hint);
    }
    throw new CompactorException(
        "unknown replay strategy \""
            + name
            + "\"; known strategies: "
            + String.join(", ", names()));
  }

  /** Whether {@link #get} finds a strategy of this name. */
  public boolean contains(String name) {
    return name != null && byName.containsKey(name);
  }

  /** The known names, sorted. */
  public List<String> names() {
    return List.copyOf(new TreeMap<>(byName).keySet());
  }

  /**
   * The {@link #SCORECARD} strategies that are present, in that order, then any other known ones
   * (sorted).
   */
  public List<String> scorecardNames() {
    List<String> out = new ArrayList<>();
    for (String n : SCORECARD) {
      if (byName.containsKey(n)) {
        out.add(n);
      }
    }
    for (String n : names()) {
      if (!out.contains(n)) {
        out.add(n);
      }
    }
    return out;
  }
}
