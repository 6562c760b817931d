package dev.compactor.core.compaction;

import dev.compactor.core.CompactorException;
import java.net.URL;
import java.security.CodeSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Finds {@link ContextProvider}s by name: the Java counterpart of gptme's entry points and {@code
 * register_provider}.
 *
 * <p><b>Discovery.</b> {@link #ProviderRegistry(ClassLoader)} and {@link #global()} load every
 * provider that {@link ServiceLoader} finds: on the class path, a jar lists its classes in {@code
 * META-INF/services/dev.compactor.core.compaction.ContextProvider}, one fully qualified class name
 * a line; on the module path, {@code provides dev.compactor.core.compaction.ContextProvider with
 * com.acme.MyProvider;} in the plugin's {@code module-info.java} works the same. Each discovered
 * class is instantiated once (public no-argument constructor, or a public static {@code provider()}
 * method for module-path providers) and registered under its {@link ContextProvider#name()}. A
 * plugin jar therefore needs no registration code at all.
 *
 * <p><b>Registration</b> is programmatic, through a {@link Builder} ({@link #builder()}): {@link
 * Builder#discover(ClassLoader)} adds what {@link ServiceLoader} finds, {@link
 * Builder#register(String, ContextProvider)} an instance, {@link Builder#register(String,
 * Supplier)} a factory called once, on first {@link #get}. The name given there is the lookup key
 * (it may differ from the provider's own {@code name()}, e.g. to register one class twice with
 * different settings). A built registry is immutable: nothing is registered at run time, so every
 * caller of a registry sees the same providers.
 *
 * <p><b>Names.</b> Case-sensitive, non-blank, without whitespace. A name is taken at most once:
 * registering or discovering a second provider under a taken name fails with a {@link
 * CompactorException} that names both providers (their classes, and for discovered ones the jar
 * they came from). {@value #DEFAULT} is an alias of {@value #DEFAULT_TARGET}, the built-in default
 * strategy; {@link Builder#alias} adds or re-points aliases. {@link #list()} returns provider names
 * and aliases whose target is present, sorted.
 *
 * <p><b>Thread-safety.</b> A registry is immutable and safe to share; a factory runs at most once
 * at a time. A builder is not thread-safe. The providers themselves must be thread-safe (see {@link
 * ContextProvider}).
 *
 * <pre>{@code
 * ContextProvider p = ProviderRegistry.global().get("default"); // the built-in "trim"
 * ProviderRegistry registry = ProviderRegistry.builder()
 *     .discover(ProviderRegistry.class.getClassLoader())
 *     .register("shrink-50", () -> new KeepLastProvider(50))
 *     .build();
 * List<String> names = registry.list(); // [default, mask, shrink-50, summarize, trim]
 * }</pre>
 */
public final class ProviderRegistry {

  /** The alias under which the built-in default strategy is found. */
  public static final String DEFAULT = "default";

  /** The provider {@value #DEFAULT} stands for unless re-pointed with {@link Builder#alias}. */
  public static final String DEFAULT_TARGET = "trim";

  private static volatile ProviderRegistry global;

  private final Map<String, Entry> providers;
  private final Map<String, String> aliases;

  private ProviderRegistry(Map<String, Entry> providers, Map<String, String> aliases) {
    this.providers = Map.copyOf(providers);
    this.aliases = Map.copyOf(aliases);
  }

  /**
   * A registry holding every provider {@link ServiceLoader} finds through {@code loader}: the same
   * as {@code builder().discover(loader).build()}.
   *
   * @param loader where to look (its ancestors included); e.g. a {@link java.net.URLClassLoader}
   *     over plugin jars
   * @throws CompactorException when two discovered providers have the same name (the message names
   *     both classes and where they came from), a provider's {@code name()} is invalid, or a listed
   *     provider cannot be loaded or instantiated
   */
  public ProviderRegistry(ClassLoader loader) {
    this(builder().discover(loader));
  }

  private ProviderRegistry(Builder b) {
    this(b.providers, b.aliases);
  }

  /** A builder with the {@value #DEFAULT} alias and no providers. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The shared registry: built once, on first use, from the providers {@link ServiceLoader} finds
   * through the class loader that loaded Compactor, and immutable. Applications that add providers
   * of their own or load plugins through their own class loaders build their own registry with
   * {@link #builder()}.
   *
   * @throws CompactorException when discovery fails (see {@link #ProviderRegistry(ClassLoader)});
   *     nothing is cached then, so the next call tries again
   */
  public static ProviderRegistry global() {
    ProviderRegistry r = global;
    if (r == null) {
      synchronized (ProviderRegistry.class) {
        r = global;
        if (r == null) {
          ClassLoader cl = ProviderRegistry.class.getClassLoader();
          r = new ProviderRegistry(cl == null ? ClassLoader.getSystemClassLoader() : cl);
          global = r;
        }
      }
    }
    return r;
  }

  /**
   * The provider registered under {@code name} (or under the target of the alias {@code name}).
   *
   * @throws CompactorException when no provider has that name (the message lists the known names),
   *     or its factory fails or returns null
   */
  public ContextProvider get(String name) {
    String resolved = name == null ? null : aliases.getOrDefault(name, name);
    Entry e = resolved == null ? null : providers.get(resolved);
    if (e == null) {
      String what =
          name != null && !name.equals(resolved)
              ? "context provider \""
                  + name
                  + "\" is an alias of \""
                  + resolved
                  + "\", which is not registered"
              : "unknown context provider \"" + name + "\"";
      throw new CompactorException(what + "; known providers: " + describeNames(list()));
    }
    return e.instance(resolved);
  }

  /** Whether {@link #get} would find a provider under {@code name}. */
  public boolean contains(String name) {
    return name != null && providers.containsKey(aliases.getOrDefault(name, name));
  }

  /** Names of the registered providers and of the aliases whose target is registered, sorted. */
  public List<String> list() {
    TreeSet<String> names = new TreeSet<>(providers.keySet());
    aliases.forEach(
        (alias, target) -> {
          if (providers.containsKey(target)) {
            names.add(alias);
          }
        });
    return List.copyOf(names);
  }

  /**
   * Collects providers and aliases for one immutable {@link ProviderRegistry}. Every method fails
   * at once, naming the names and providers involved, when a name is invalid or taken. Not
   * thread-safe.
   */
  public static final class Builder {
    private final Map<String, Entry> providers = new LinkedHashMap<>();
    private final Map<String, String> aliases = new LinkedHashMap<>();

    private Builder() {
      aliases.put(DEFAULT, DEFAULT_TARGET);
    }

    /**
     * Adds every provider {@link ServiceLoader} finds through {@code loader}, each instantiated
     * once and registered under its {@link ContextProvider#name()}.
     *
     * @throws CompactorException when a discovered name is taken or invalid, or a listed provider
     *     cannot be loaded or instantiated
     */
    public Builder discover(ClassLoader loader) {
      Objects.requireNonNull(loader, "class loader");
      ServiceLoader<ContextProvider> found = ServiceLoader.load(ContextProvider.class, loader);
      try {
        for (ContextProvider p : found) {
          String name;
          try {
            name = p.name();
          } catch (RuntimeException e) {
            throw new CompactorException(
                "context provider " + describe(p.getClass()) + " failed in name(): " + e, e);
          }
          add(name, Entry.of(p, "discovered " + describe(p.getClass())));
        }
      } catch (ServiceConfigurationError e) {
        throw new CompactorException(
            "cannot load a context provider listed for ServiceLoader: " + e.getMessage(), e);
      }
      return this;
    }

    /**
     * Registers a provider instance under {@code name}.
     *
     * @throws CompactorException when the name is taken (by a provider or an alias) or invalid
     * @throws NullPointerException when {@code provider} is null
     */
    public Builder register(String name, ContextProvider provider) {
      Objects.requireNonNull(provider, "provider");
      add(name, Entry.of(provider, "registered " + describe(provider.getClass())));
      return this;
    }

    /**
     * Registers a factory under {@code name}. It is called once, on the first {@link
     * ProviderRegistry#get} of that name, and the instance is shared from then on; if it throws,
     * the next {@code get} calls it again.
     *
     * @throws CompactorException when the name is taken (by a provider or an alias) or invalid
     * @throws NullPointerException when {@code factory} is null
     */
    public Builder register(String name, Supplier<? extends ContextProvider> factory) {
      Objects.requireNonNull(factory, "provider factory");
      add(name, new Entry(factory, "registered factory " + factory.getClass().getName()));
      return this;
    }

    /**
     * Makes {@code alias} resolve to the provider registered as {@code target} (one level: the
     * target must be a provider name, not another alias). Re-pointing an existing alias is allowed,
     * e.g. {@code alias("default", "mask")}. The target need not be registered yet.
     *
     * @throws CompactorException when {@code alias} is a provider name, {@code target} is an alias,
     *     or either name is invalid
     */
    public Builder alias(String alias, String target) {
      checkName(alias, "as an alias");
      checkName(target, "as the target of alias \"" + alias + "\"");
      if (providers.containsKey(alias)) {
        throw new CompactorException(
            "cannot make \""
                + alias
                + "\" an alias: a provider is registered under that name ("
                + providers.get(alias).origin
                + ")");
      }
      if (aliases.containsKey(target)) {
        throw new CompactorException(
            "alias target \"" + target + "\" is itself an alias; point at a provider name");
      }
      aliases.put(alias, target);
      return this;
    }

    /** The immutable registry of what was added so far; the builder can go on. */
    public ProviderRegistry build() {
      return new ProviderRegistry(this);
    }

    private void add(String name, Entry entry) {
      checkName(name, entry.origin);
      if (aliases.containsKey(name)) {
        throw new CompactorException(
            "context provider name \""
                + name
                + "\" of "
                + entry.origin
                + " is taken by an alias of \""
                + aliases.get(name)
                + "\"");
      }
      Entry existing = providers.get(name);
      if (existing != null) {
        throw new CompactorException(
            "duplicate context provider name \""
                + name
                + "\": "
                + existing.origin
                + " and "
                + entry.origin
                + " both use it; rename one or remove it from the class path");
      }
      providers.put(name, entry);
    }
  }

  private static void checkName(String name, String context) {
    if (name == null || name.isEmpty() || name.codePoints().anyMatch(Character::isWhitespace)) {
      throw new CompactorException(
          "invalid context provider name "
              + (name == null ? "null" : "\"" + name + "\"")
              + " ("
              + context
              + "): a name must be non-empty and contain no whitespace");
    }
  }

  private static String describeNames(List<String> names) {
    return names.isEmpty() ? "(none)" : String.join(", ", names);
  }

  /** "class com.acme.P (from /x/acme.jar)", the location when the platform reveals it. */
  static String describe(Class<?> type) {
    String where = null;
    try {
      CodeSource cs = type.getProtectionDomain().getCodeSource();
      URL location = cs == null ? null : cs.getLocation();
      where = location == null ? null : location.toString();
    } catch (SecurityException ignored) {
      // the location is a convenience for the error message only
    }
    return "class " + type.getName() + (where == null ? "" : " (from " + where + ")");
  }

  private static final class Entry {
    final String origin;
    private final Supplier<? extends ContextProvider> factory;
    private volatile ContextProvider instance;

    Entry(Supplier<? extends ContextProvider> factory, String origin) {
      this.factory = factory;
      this.origin = origin;
    }

    static Entry of(ContextProvider provider, String origin) {
      Entry e = new Entry(() -> provider, origin);
      e.instance = provider;
      return e;
    }

    ContextProvider instance(String name) {
      ContextProvider p = instance;
      if (p != null) {
        return p;
      }
      synchronized (this) {
        if (instance == null) {
          ContextProvider made;
          try {
            made = factory.get();
          } catch (RuntimeException e) {
            throw new CompactorException(
                "the factory of context provider \"" + name + "\" failed: " + e, e);
          }
          if (made == null) {
            throw new CompactorException(
                "the factory of context provider \"" + name + "\" returned null");
          }
          instance = made;
        }
        return instance;
      }
    }

    @Override
    public String toString() {
      return origin;
    }
  }
}
