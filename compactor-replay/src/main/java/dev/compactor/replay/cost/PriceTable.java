package dev.compactor.replay.cost;

import dev.compactor.core.CompactorException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Model prices for the replay's cost figures. The built-in table is the resource {@code
 * dev/compactor/replay/cost/prices.tsv} (format in its header): public list prices in USD per
 * million tokens, plus a {@code default} line for models it does not list.
 *
 * <p>Lookup on the trimmed, lower-cased name: an exact {@code provider/model} id; else the bare
 * name (after the last {@code /}) under any provider; else the longest listed bare name that the
 * name starts with, followed by {@code -}, {@code :} or {@code @} (dated and tagged versions); else
 * the default. Immutable and thread-safe.
 *
 * <pre>{@code
 * Price p = PriceTable.builtIn().find("gpt-4o-2024-08-06"); // openai/gpt-4o, 2.50 / 10.00
 * }</pre>
 */
public final class PriceTable {
  /** The name of the fallback line. */
  public static final String DEFAULT = "default";

  private static final String RESOURCE = "prices.tsv";

  private final Map<String, Price> byId;
  private final Map<String, Price> byName = new LinkedHashMap<>();
  private final Price fallback;

  private PriceTable(Map<String, Price> byId, String source) {
    this.byId = Map.copyOf(byId);
    this.fallback = byId.get(DEFAULT);
    if (fallback == null) {
      throw new CompactorException("price table " + source + " has no \"default\" line");
    }
    byId.forEach(
        (id, p) -> {
          if (!id.equals(DEFAULT)) {
            byName.putIfAbsent(id.substring(id.lastIndexOf('/') + 1), p);
          }
        });
  }

  /** The built-in table. */
  public static PriceTable builtIn() {
    return Holder.BUILT_IN;
  }

  /**
   * Reads a table in the format of the built-in one.
   *
   * @throws CompactorException naming the file and line when it cannot be read or a line is
   *     invalid, or when it has no {@code default} line
   */
  public static PriceTable read(Path file) {
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return parse(r, file.toString());
    } catch (IOException e) {
      throw new CompactorException("cannot read price table " + file + ": " + e.getMessage(), e);
    }
  }

  /** The price of a model (see the class comment); never null. */
  public Price find(String model) {
    if (model == null || model.isBlank()) {
      return fallback;
    }
    String key = model.trim().toLowerCase(Locale.ROOT);
    Price p = byId.get(key);
    if (p != null) {
      return p;
    }
    String bare = key.substring(key.lastIndexOf('/') + 1);
    p = byName.get(bare);
    if (p != null) {
      return p;
    }
    Price best = null;
    int bestLength = -1;
    for (Map.Entry<String, Price> e : byName.entrySet()) {
      String name = e.getKey();
      if (bare.length() > name.length()
          && bare.startsWith(name)
          && "-:@".indexOf(bare.charAt(name.length())) >= 0
          && name.length() > bestLength) {
        best = e.getValue();
        bestLength = name.length();
      }
    }
    return best != null ? best : fallback;
  }

  private static PriceTable parse(Reader reader, String source) throws IOException {
    Map<String, Price> prices = new LinkedHashMap<>();
    BufferedReader in = new BufferedReader(reader);
    String line;
    int number = 0;
    while ((line = in.readLine()) != null) {
      number++;
      String s = line.strip();
      if (s.isEmpty() || s.startsWith("#")) {
        continue;
      }
      String[] cols = s.split("\\s+");
      if (cols.length != 3) {
        throw new CompactorException(
            source + " line " + number + ": expected \"id input output\", got \"" + s + "\"");
      }
      String id = cols[0].toLowerCase(Locale.ROOT);
      Price p;
      try {
        p = new Price(id, Double.parseDouble(cols[1]), Double.parseDouble(cols[2]));
      } catch (NumberFormatException e) {
        throw new CompactorException(
            source
                + " line "
                + number
                + ": invalid prices in \""
                + s
                + "\": input and output must be numbers (dollars per million tokens)",
            e);
      } catch (IllegalArgumentException e) {
        throw new CompactorException(
            source + " line " + number + ": invalid prices in \"" + s + "\": " + e.getMessage(), e);
      }
      if (prices.put(id, p) != null) {
        throw new CompactorException(source + " line " + number + ": " + id + " listed twice");
      }
    }
    return new PriceTable(prices, source);
  }

  private static final class Holder {
    static final PriceTable BUILT_IN = load();

    private static PriceTable load() {
      try (InputStream in = PriceTable.class.getResourceAsStream(RESOURCE)) {
        Objects.requireNonNull(in, "resource " + RESOURCE);
        return parse(new InputStreamReader(in, StandardCharsets.UTF_8), RESOURCE);
      } catch (IOException e) {
        throw new CompactorException("cannot read the built-in price table: " + e, e);
      }
    }
  }
}
