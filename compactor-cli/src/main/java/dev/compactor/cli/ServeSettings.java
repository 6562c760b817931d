package dev.compactor.cli;

import dev.compactor.chat.store.ChatStores;
import dev.compactor.cli.config.ConfigLocations;
import dev.compactor.cli.config.ServerConfig;
import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.server.ProxySettings;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Upstream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code compactor serve}'s settings, resolved through the layers the other commands use: the flag,
 * then the environment ({@code COMPACTOR_HOST}, {@code COMPACTOR_PORT}, {@code COMPACTOR_DB}), then
 * {@code [server]} of the project's file (or {@code --config FILE}), then of the user's file, then
 * the default. Upstreams: the files' {@code [upstreams.NAME]} tables, each replaced by an {@code
 * --upstream NAME=URL} of the same name. An invalid value is refused naming it and where it came
 * from.
 *
 * @param server the server's settings
 * @param db the store: a SQLite path or a PostgreSQL URL
 * @param timeout the model calls' timeout
 * @param sources where each setting came from, for the startup lines
 */
record ServeSettings(
    ServerSettings server, String db, Duration timeout, Map<String, String> sources) {

  static ServeSettings resolve(ServeCommand c, Map<String, String> env) {
    Path cwd = Path.of("").toAbsolutePath();
    ConfigLocations std = ConfigLocations.standard(cwd, env);
    if (c.config != null && !Files.isRegularFile(c.config)) {
      throw new CompactorException("--config " + c.config + ": no such file");
    }
    ConfigLocations locations =
        c.config == null ? std : new ConfigLocations(c.config, std.userFile(), std.home());
    ServerConfig file = ServerConfig.load(locations);
    for (String k : file.unknownKeys()) {
      c.spec.commandLine().getErr().println("compactor: warning: unknown setting " + k);
    }
    Map<String, String> sources = new LinkedHashMap<>();
    ServerSettings.Builder b = ServerSettings.builder();

    Layer host = layer("--host", c.host, "COMPACTOR_HOST", env, file, "host");
    if (host != null) {
      b.host(host.value);
      sources.put("host", host.source);
    }
    Layer port = layer("--port", c.port, "COMPACTOR_PORT", env, file, "port");
    if (port != null) {
      b.port((int) whole(port, 0, 65535, "port"));
      sources.put("port", port.source);
    }
    Layer body = layer("--max-body", c.maxBody, null, env, file, "max_body_bytes");
    if (body != null) {
      b.maxBodyBytes(whole(body, 1024, Long.MAX_VALUE, "body limit (bytes)"));
    }
    Layer log =
        layer("--log-content", c.logContent ? "true" : null, null, env, file, "log_content");
    if (log != null) {
      if (!log.value.equals("true") && !log.value.equals("false")) {
        throw new CompactorException(
            "log_content \"" + log.value + "\" from " + log.source + " must be true or false");
      }
      b.logContent(Boolean.parseBoolean(log.value));
    }
    Layer t = layer("--timeout", c.timeout, null, env, file, "timeout");
    Duration timeout =
        Timeouts.parse(t == null ? null : t.value, t == null ? "--timeout" : t.source);
    b.modelTimeout(timeout);

    Layer retention =
        layer("--proxy-retention", c.proxyRetention, null, env, file, "proxy_retention");
    if (retention != null) {
      b.proxyRetention(retention(retention));
    }

    Map<String, Upstream> ups = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, ServerConfig.Value>> e : file.upstreams().entrySet()) {
      ServerConfig.Value url = e.getValue().get("base_url");
      ServerConfig.Value key = e.getValue().get("api_key_env");
      String where =
          url != null
              ? url.source()
              : key != null ? key.source() : "[upstreams." + e.getKey() + "]";
      try {
        Upstream u =
            new Upstream(
                e.getKey(),
                url == null ? null : url.text(),
                key == null ? null : key.text(),
                policy(e.getValue(), file.upstreamModels().getOrDefault(e.getKey(), Map.of())));
        ups.put(u.name(), u);
      } catch (IllegalArgumentException ex) {
        throw new CompactorException(ex.getMessage() + " (from " + where + ")", ex);
      }
    }
    for (String spec : c.upstreams) {
      try {
        Upstream u = Upstream.parse(spec);
        Upstream fromFile = ups.get(u.name());
        ups.put(
            u.name(),
            new Upstream(
                u.name(),
                u.baseUrl(),
                fromFile == null ? null : fromFile.apiKeyEnv(),
                fromFile == null ? null : fromFile.proxy()));
      } catch (IllegalArgumentException ex) {
        throw new CompactorException("--upstream " + ex.getMessage(), ex);
      }
    }
    ups.values().forEach(b::upstream);

    Layer db = layer("--db", c.db, "COMPACTOR_DB", env, file, "db");
    String store =
        db != null
            ? db.value
            : ChatStores.defaultSqliteFile(env, System.getProperty("user.home")).toString();
    sources.put("db", db == null ? "default" : db.source);
    try {
      return new ServeSettings(b.build(), store, timeout, sources);
    } catch (IllegalArgumentException e) {
      throw new CompactorException(e.getMessage() + describe(sources), e);
    }
  }

  /**
   * The proxy policy of {@code [upstreams.NAME]} and its {@code models} tables.
   *
   * @throws CompactorException naming the value and its source when one is invalid
   */
  static ProxySettings policy(
      Map<String, ServerConfig.Value> upstream,
      Map<String, Map<String, ServerConfig.Value>> models) {
    Map<String, ProxySettings> perModel = new LinkedHashMap<>();
    models.forEach((model, values) -> perModel.put(model, policy(values, Map.of())));
    return onePolicy(upstream, perModel);
  }

  private static ProxySettings onePolicy(
      Map<String, ServerConfig.Value> values, Map<String, ProxySettings> models) {
    ServerConfig.Value budget = values.get("budget");
    ServerConfig.Value reminder = values.get("reminder");
    ServerConfig.Value summary = values.get("summary_model");
    ServerConfig.Value target = values.get("target");
    Double aim = null;
    if (target != null) {
      double t = target.node().isNumber() ? target.node().asDouble() : Double.NaN;
      if (!(t > 0 && t <= 1)) {
        throw new CompactorException(
            "target \""
                + target.text()
                + "\" from "
                + target.source()
                + " must be a fraction of the budget in (0, 1], e.g. 0.6");
      }
      aim = t;
    }
    Boolean remind = null;
    if (reminder != null) {
      if (!reminder.node().isBoolean()) {
        throw new CompactorException(
            "reminder \""
                + reminder.text()
                + "\" from "
                + reminder.source()
                + " must be true or false");
      }
      remind = reminder.node().asBoolean();
    }
    if (summary != null && !summary.node().isTextual()) {
      throw new CompactorException(
          "summary_model "
              + summary.text()
              + " from "
              + summary.source()
              + " must be a string, provider/model (e.g. \"openai/gpt-4o-mini\")");
    }
    BudgetSetting b = null;
    if (budget != null) {
      if (!budget.node().isNumber() && !budget.node().isTextual()) {
        throw new CompactorException(
            "budget \"" + budget.text() + "\" from " + budget.source() + " must be a number");
      }
      b = BudgetSetting.of(budget.text(), budget.source());
    }
    try {
      return new ProxySettings(b, remind, aim, summary == null ? null : summary.text(), models);
    } catch (IllegalArgumentException e) {
      throw new CompactorException(
          e.getMessage() + (summary == null ? "" : " (from " + summary.source() + ")"), e);
    }
  }

  private static final Pattern RETENTION =
      Pattern.compile("(\\d+)\\s*([smhd])", Pattern.CASE_INSENSITIVE);

  /** A retention period: {@code 0} (keep forever) or a whole number with s, m, h or d. */
  private static Duration retention(Layer l) {
    String v = l.value.replace("_", "");
    if (v.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = RETENTION.matcher(v);
    if (m.matches()) {
      try {
        long n = Long.parseLong(m.group(1));
        Duration d =
            switch (m.group(2).toLowerCase(Locale.ROOT)) {
              case "s" -> Duration.ofSeconds(n);
              case "m" -> Duration.ofMinutes(n);
              case "h" -> Duration.ofHours(n);
              default -> Duration.ofDays(n);
            };
        if (n > 0 && d.compareTo(Duration.ofDays(36_500)) <= 0) {
          return d;
        }
      } catch (NumberFormatException | ArithmeticException e) {
        // refused below
      }
    }
    throw new CompactorException(
        "proxy retention \""
            + l.value
            + "\" from "
            + l.source
            + " must be 0 (keep forever) or a whole number with s, m, h or d (7d, 12h), at most"
            + " 36500d");
  }

  private static String describe(Map<String, String> sources) {
    return sources.isEmpty() ? "" : " (settings from: " + sources + ")";
  }

  /** A setting's value and where it came from. */
  private record Layer(String value, String source) {}

  private static Layer layer(
      String flag,
      String flagValue,
      String envVar,
      Map<String, String> env,
      ServerConfig file,
      String key) {
    if (flagValue != null) {
      return new Layer(flagValue.strip(), flag);
    }
    if (envVar != null) {
      String v = env.get(envVar);
      if (v != null && !v.isBlank()) {
        return new Layer(v.strip(), envVar);
      }
    }
    ServerConfig.Value v = file.server().get(key);
    return v == null ? null : new Layer(v.text().strip(), v.source());
  }

  private static long whole(Layer l, long min, long max, String what) {
    try {
      long n = Long.parseLong(l.value.replace("_", ""));
      if (n < min || n > max) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new CompactorException(
          String.format(
              Locale.ROOT,
              "%s \"%s\" from %s must be a whole number from %d to %d",
              what,
              l.value,
              l.source,
              min,
              max == Long.MAX_VALUE ? Long.MAX_VALUE : max));
    }
  }
}
