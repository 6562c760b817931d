package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.ChatModelFactory;
import dev.compactor.core.Compactor;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.CostPlanner;
import dev.compactor.core.policy.PendingCalls;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.recovery.OverflowRecovery;
import dev.compactor.core.recovery.RecoveryFailedException;
import dev.compactor.core.recovery.RecoveryResult;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.models.ProviderErrors;
import dev.compactor.server.ProxySettings;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Upstream;
import dev.compactor.wire.json.Json;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The compacting proxy: OpenAI- and Anthropic-compatible routes that forward to a named upstream
 * and, for Chat Completions, Anthropic Messages and stateless Responses requests, send a compacted
 * view of a long conversation in place of the full history the client sent. See {@code
 * docs/proxy.md}.
 *
 * <p>Routes: {@code POST /v1/chat/completions}, {@code POST /v1/messages} and {@code POST
 * /v1/responses} (compacted); {@code POST /v1/messages/count_tokens} and {@code GET /v1/models}
 * (passed through); each also under {@code /u/{name}/v1/…} for the upstream {@code name}. OpenAI
 * paths go to the {@code openai} upstream, Anthropic paths to {@code anthropic}.
 *
 * <p>Rules kept everywhere: the provider's status, headers and body (or event sequence, flushed
 * event by event) reach the client unchanged, plus {@code x-compactor-*} headers; anything the
 * proxy cannot read is forwarded as it came with {@code x-compactor-action: passthrough}; a failure
 * of the proxy's own (its store, a codec) never fails the request. Credentials: in local mode the
 * client's {@code Authorization} / {@code x-api-key} go to the provider and are never stored or
 * logged; with tenant keys they are the tenant's key to this server and are replaced by the
 * upstream's configured key. Thread-safe.
 */
public final class ProxyRoutes {
  /** Header: the client's own conversation id (and the proxy's answer). */
  public static final String CONVERSATION = "x-compactor-conversation";

  /** Header: what the proxy did: none, masked, trimmed, summarized, recovered, passthrough. */
  public static final String ACTION = "x-compactor-action";

  /** Header: tokens of the conversation as the client sent it. */
  public static final String TOKENS_BEFORE = "x-compactor-tokens-before";

  /** Header: tokens of what the proxy sent. */
  public static final String TOKENS_AFTER = "x-compactor-tokens-after";

  /** Header: the context budget for this request (tokens or a fraction of the window). */
  public static final String BUDGET = "x-compactor-budget";

  /** Header: why the proxy passed a request through, when it could not read it. */
  public static final String REASON = "x-compactor-reason";

  /** Default base URL of the {@code openai} upstream. */
  public static final String OPENAI_URL = "https://api.openai.com/v1";

  /** Default base URL of the {@code anthropic} upstream. */
  public static final String ANTHROPIC_URL = "https://api.anthropic.com/v1";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int MAX_KEY_LENGTH = 200;

  private final Map<String, Upstream> upstreams;
  private final Map<String, String> env;
  private final boolean keysRequired;
  private final ProxyStore store;
  private final Function<Context, String> tenantOf;
  private final PrintStream log;
  private final UpstreamClient client;
  private final Map<String, Planner> compactors = new ConcurrentHashMap<>();
  private final ProxyMetrics metrics;
  private final ChatModelFactory summaryModels;
  private final ChainMemo chains = new ChainMemo(ChainMemo.DEFAULT_MAX_BYTES);

  /**
   * @param upstreams the configured upstreams by name
   * @param env where upstream keys are read in tenant mode
   * @param keysRequired whether clients authenticate with this server's tenant keys (then the
   *     upstream keys come from {@code env}) or are forwarded to the provider with their own
   * @param store the conversations and their master log
   * @param tenantOf the tenant the server's guard found for a request
   * @param log where the proxy reports its own failures (a line, never content or keys)
   * @param timeout how long the upstream may take to start answering
   */
  public ProxyRoutes(
      Map<String, Upstream> upstreams,
      Map<String, String> env,
      boolean keysRequired,
      ProxyStore store,
      Function<Context, String> tenantOf,
      PrintStream log,
      Duration timeout) {
    this(upstreams, env, keysRequired, store, tenantOf, log, timeout, ProxyMetrics.NONE, null);
  }

  /**
   * As above, counting into {@code metrics}, with the clients that write summaries for upstreams
   * that configure a {@code summary_model} ({@link ProxySettings}).
   *
   * @param metrics what the proxy counts
   * @param summaryModels makes the summary models' clients ({@code provider/model}), or null for
   *     none (a configured summary model then falls back to the extractive summarizer)
   */
  public ProxyRoutes(
      Map<String, Upstream> upstreams,
      Map<String, String> env,
      boolean keysRequired,
      ProxyStore store,
      Function<Context, String> tenantOf,
      PrintStream log,
      Duration timeout,
      ProxyMetrics metrics,
      ChatModelFactory summaryModels) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.summaryModels = summaryModels;
    this.upstreams = Map.copyOf(upstreams);
    this.env = Map.copyOf(env);
    this.keysRequired = keysRequired;
    this.store = Objects.requireNonNull(store, "store");
    this.tenantOf = Objects.requireNonNull(tenantOf, "tenantOf");
    this.log = Objects.requireNonNull(log, "log");
    this.client = new UpstreamClient(Duration.ofSeconds(10), timeout);
  }

  /** Whether {@code path} is one of the proxy's (the server's guard accepts {@code x-api-key}). */
  public static boolean isProxyPath(String path) {
    String p = path.startsWith("/u/") ? stripUpstream(path) : path;
    return p != null
        && (p.equals("/v1/chat/completions")
            || p.equals("/v1/messages")
            || p.equals("/v1/messages/count_tokens")
            || p.equals("/v1/responses")
            || p.equals("/v1/models"));
  }

  private static String stripUpstream(String path) {
    int slash = path.indexOf('/', 3);
    return slash < 0 ? null : path.substring(slash);
  }

  /** Adds the proxy's routes. */
  public void register(RoutesConfig routes) {
    for (String prefix : List.of("", "/u/{upstream}")) {
      routes.post(
          prefix + "/v1/chat/completions",
          ctx -> compacting(ctx, WireApi.CHAT_COMPLETIONS, "/chat/completions"));
      routes.post(
          prefix + "/v1/messages", ctx -> compacting(ctx, WireApi.ANTHROPIC_MESSAGES, "/messages"));
      routes.post(
          prefix + "/v1/messages/count_tokens",
          ctx -> passthrough(ctx, "anthropic", "/messages/count_tokens"));
      routes.post(
          prefix + "/v1/responses", ctx -> compacting(ctx, WireApi.RESPONSES, "/responses"));
      routes.get(prefix + "/v1/models", ctx -> passthrough(ctx, "openai", "/models"));
    }
  }

  // ------------------------------------------------------------------ upstreams

  /** Where a request goes: the base URL and the key to use in tenant mode. */
  private record Target(String name, String baseUrl, String apiKey) {}

  private Target target(Context ctx, String defaultName) {
    String name = ctx.pathParamMap().getOrDefault("upstream", defaultName);
    name = name.toLowerCase(Locale.ROOT);
    Upstream u = upstreams.get(name);
    String base;
    if (u != null && u.baseUrl() != null) {
      base = u.baseUrl();
    } else if (name.equals("openai")) {
      base = OPENAI_URL;
    } else if (name.equals("anthropic")) {
      base = ANTHROPIC_URL;
    } else {
      return null;
    }
    String key = null;
    if (keysRequired) {
      String envName =
          u != null && u.apiKeyEnv() != null
              ? u.apiKeyEnv()
              : name.equals("anthropic")
                  ? "ANTHROPIC_API_KEY"
                  : name.equals("openai") ? "OPENAI_API_KEY" : null;
      key = envName == null ? null : env.get(envName);
    }
    return new Target(name, base, key);
  }

  private List<String[]> forwardHeaders(Context ctx, Target t) {
    List<String[]> out = new ArrayList<>();
    for (String name : Collections.list(ctx.req().getHeaderNames())) {
      String lower = name.toLowerCase(Locale.ROOT);
      if (UpstreamClient.HOP_BY_HOP.contains(lower)
          || lower.equals("accept-encoding")
          || lower.startsWith("x-compactor-")) {
        continue;
      }
      if (keysRequired && (lower.equals("authorization") || lower.equals("x-api-key"))) {
        continue; // the tenant's key to this server, never the provider's
      }
      for (String v : Collections.list(ctx.req().getHeaders(name))) {
        out.add(new String[] {name, v});
      }
    }
    if (keysRequired && t.apiKey() != null) {
      if (t.name().equals("anthropic")) {
        out.add(new String[] {"x-api-key", t.apiKey()});
      } else {
        out.add(new String[] {"Authorization", "Bearer " + t.apiKey()});
      }
    }
    return out;
  }

  private static URI uri(Context ctx, Target t, String suffix) {
    String q = ctx.queryString();
    return URI.create(t.baseUrl() + suffix + (q == null || q.isEmpty() ? "" : "?" + q));
  }

  // ------------------------------------------------------------------ passthrough

  private void passthrough(Context ctx, String defaultUpstream, String suffix) throws IOException {
    Target t = target(ctx, defaultUpstream);
    if (t == null) {
      noUpstream(ctx);
      return;
    }
    byte[] body = ctx.method().name().equals("GET") ? null : ctx.bodyAsBytes();
    Headers h = new Headers("passthrough", null, -1, -1);
    h.reason = "not compacted on this route";
    h.upstream = t.name();
    try (UpstreamClient.Answer a =
        client.send(ctx.method().name(), uri(ctx, t, suffix), forwardHeaders(ctx, t), body)) {
      relay(ctx, a, h, null, null);
    } catch (IOException e) {
      upstreamUnreachable(ctx, t, e);
    }
  }

  // ------------------------------------------------------------------ compacting

  /** The response headers the proxy adds. */
  private static final class Headers {
    String upstream = "?";
    String api = "other";
    String action;
    String conversation;
    long before;
    long after;
    String reason;
    AppliedCompaction compaction; // the request's compaction, for the journal; or null

    Headers(String action, String conversation, long before, long after) {
      this.action = action;
      this.conversation = conversation;
      this.before = before;
      this.after = after;
    }

    void apply(jakarta.servlet.http.HttpServletResponse res) {
      res.setHeader(ACTION, action);
      if (conversation != null) {
        res.setHeader(CONVERSATION, conversation);
      }
      if (before >= 0) {
        res.setHeader(TOKENS_BEFORE, Long.toString(before));
      }
      if (after >= 0) {
        res.setHeader(TOKENS_AFTER, Long.toString(after));
      }
      if (reason != null) {
        res.setHeader(REASON, reason.length() > 200 ? reason.substring(0, 200) : reason);
      }
    }
  }

  /** What one request will send and store. */
  static final class Plan {
    WireApi api;
    ParsedBody parsed;
    JsonNode body;
    String tenant;
    String model;
    List<JsonNode> items;
    List<String> chain;
    ProxyStore.Conversation prior; // the stored conversation this request continues, or null
    String id;
    String externalKey;
    String forkedFrom;
    String releaseKeyOf;
    int logFrom;
    List<JsonNode> effective; // what is sent when nothing new is compacted
    List<JsonNode> view; // the view stored after this request, or null
    int covered;
    int compactions;
    byte[] send;
    Headers headers;
    Compactor compactor;
    Conversation conversation; // the core conversation of the view sent, for overflow recovery
    List<Message> messages; // the decoded view sent (when nothing new is compacted)
    Target target;
    String session; // the client's session (SessionHeaders, else BodySessions), or null
    ProxySettings policy;
    int reminded = -1; // the compaction count at which the reminder went out, or -1
    FallbackSummarizer summarizer; // the configured summary model's, or null
    Set<String> pending; // the calls of messages awaiting results, when sent as they stood
  }

  private void compacting(Context ctx, WireApi api, String suffix) throws IOException {
    Target t = target(ctx, api.provider);
    if (t == null) {
      noUpstream(ctx);
      return;
    }
    URI uri = uri(ctx, t, suffix);
    List<String[]> headers = forwardHeaders(ctx, t);
    EarlyForward body = body(ctx, uri, headers);
    try {
      compacting(ctx, api, t, uri, headers, body);
    } finally {
      body.withdraw(); // when anything failed before it was sent
    }
  }

  private void compacting(
      Context ctx, WireApi api, Target t, URI uri, List<String[]> headers, EarlyForward body)
      throws IOException {
    byte[] raw = body.raw;
    Plan plan;
    try {
      plan = plan(ctx, api, raw, t);
    } catch (WireApi.Unreadable e) {
      forwardUnchanged(ctx, t, body, uri, headers, e.getMessage());
      return;
    } catch (RuntimeException e) {
      failure("planning", e);
      forwardUnchanged(
          ctx, t, body, uri, headers, "the proxy failed: " + e.getClass().getSimpleName());
      return;
    }
    plan.parsed.rewritten = plan.send != raw;
    UpstreamClient.Answer first;
    try {
      first = body.send(client, uri, headers, plan.send);
    } catch (IOException e) {
      upstreamUnreachable(ctx, t, e);
      return;
    }
    if (!first.ok()) {
      byte[] error = first.readAll();
      if (isOverflow(api, first.status(), error, plan.model)) {
        recover(ctx, plan, uri, headers, first, error);
        return;
      }
      writeBytes(ctx, first, plan.headers, error);
      return;
    }
    try (first) {
      relay(ctx, first, plan.headers, plan, null);
    }
  }

  /**
   * The request body: with a {@code Content-Length} within the proxy's limit, read straight into an
   * array of that length (Javalin's {@code bodyAsBytes} grows a buffer from a few bytes, 8 KB at a
   * time, and copies it once more at the end: for a long conversation, several copies of it), and
   * sent upstream while it arrives where that pays ({@link EarlyForward}); otherwise as Javalin
   * reads it, with its limit, and sent once planned.
   */
  private EarlyForward body(Context ctx, URI uri, List<String[]> headers) throws IOException {
    long length = ctx.req().getContentLengthLong();
    if (length < 0 || length > ServerSettings.PROXY_MAX_BODY_BYTES) {
      return EarlyForward.whole(ctx.bodyAsBytes());
    }
    String tenant = tenantOf.apply(ctx);
    return EarlyForward.read(
        ctx.req().getInputStream(),
        (int) length,
        raw -> {
          ParsedBody last = chains.latestBeginningLike(tenant, raw);
          return last == null || !last.rewritten;
        },
        client,
        uri,
        headers);
  }

  private void forwardUnchanged(
      Context ctx, Target t, EarlyForward body, URI uri, List<String[]> headers, String reason)
      throws IOException {
    Headers h = new Headers("passthrough", null, -1, -1);
    h.reason = reason;
    h.upstream = t.name();
    try (UpstreamClient.Answer a = body.send(client, uri, headers, body.raw)) {
      relay(ctx, a, h, null, null);
    } catch (IOException e) {
      upstreamUnreachable(ctx, t, e);
    }
  }

  private Plan plan(Context ctx, WireApi api, byte[] raw, Target t) throws WireApi.Unreadable {
    String tenant = tenantOf.apply(ctx);
    ParsedBody earlier = chains.earlier(tenant, raw);
    ParsedBody parsed = ParsedBody.parse(raw, earlier);
    JsonNode body = parsed.root;
    Plan p = new Plan();
    p.parsed = parsed;
    p.api = api;
    p.body = body;
    if (body != null && body.isObject()) {
      // state kept at the provider, or the provider's own compaction: left to the provider
      String why = api.passthroughReason(body);
      if (why != null) {
        throw new WireApi.Unreadable(why);
      }
    }
    // the messages taken from a body whose items this format read were checked then
    p.items =
        api.items(body, earlier != null && earlier.itemsOf == api ? parsed.taken("messages") : 0);
    parsed.itemsOf = api;
    String model = body.path("model").asText("");
    if (model.isBlank()) {
      throw new WireApi.Unreadable("the body names no model");
    }
    p.model = model;
    p.target = t;
    p.tenant = tenant;
    p.chain = chains.chain(tenant, parsed, p.items);
    Upstream configured = upstreams.get(t.name());
    p.policy = (configured == null ? ProxySettings.NONE : configured.proxy()).forModel(model);
    String header = ctx.header(BUDGET);
    BudgetSetting budget =
        header != null && !header.isBlank()
            ? BudgetSetting.of(header.strip(), "the " + BUDGET + " header")
            : p.policy.budget();
    Planner planner = compactor(api.provider + "/" + model, budget, p.policy, t.name());
    p.compactor = planner.compactor();
    p.summarizer = planner.summarizer();
    p.session = SessionHeaders.of(ctx::header);
    if (p.session == null) {
      p.session = BodySessions.of(body);
    }
    match(ctx, p);

    // What is sent when nothing new is compacted: the stored view, then the client's new items.
    List<JsonNode> effective = new ArrayList<>();
    if (p.view != null) {
      effective.addAll(p.view);
      effective.addAll(p.items.subList(p.covered, p.items.size()));
    } else {
      effective.addAll(p.items);
    }
    p.effective = effective;
    List<Message> messages;
    if (p.view == null && api.decodesContinuing()) {
      // the client's items: the next turn can take their messages as they are
      WireApi.DecodedItems d =
          api.decodeContinuing(effective, earlier == null ? null : earlier.decoded);
      parsed.decoded = d;
      messages = d.messages();
    } else {
      messages = api.decode(effective);
    }
    p.messages = messages;
    long below = belowBudget(p, messages);
    if (below >= 0) {
      // below the budget, known from the previous request's count: nothing to compact
      Headers h = new Headers("none", p.externalKey != null ? p.externalKey : p.id, below, below);
      h.upstream = t.name();
      h.api = api.name().toLowerCase(Locale.ROOT);
      p.headers = h;
      p.send = p.view == null ? raw : bytes(api.body(body, effective));
      return p;
    }
    Compactor.Result r = planner.policy().compact(p.compactor, planner.deeper(), messages);
    p.conversation = r.conversation();
    CompactionOutcome o = r.outcome();
    Headers h = new Headers("none", p.externalKey != null ? p.externalKey : p.id, o.tokens(), -1);
    h.upstream = t.name();
    h.api = api.name().toLowerCase(Locale.ROOT);
    p.headers = h;
    String summaryFailure = summaryFailure(p);
    if (summaryFailure != null) {
      h.reason = summaryFailure;
    }
    if (o instanceof CompactionOutcome.Compacted c) {
      List<JsonNode> view = api.encode(r.messages(), effective);
      p.view = view;
      p.covered = p.items.size();
      p.compactions++;
      p.send = bytes(api.body(body, view));
      h.action = action(c.report().strategy());
      h.before = c.report().tokensBefore();
      h.after = c.report().tokensAfter();
      h.compaction = c.report();
    } else if (!ProxyReminder.remind(this, p, r, o)) {
      p.pending = PendingCalls.of(messages);
      p.send = p.view == null ? raw : bytes(api.body(body, effective));
      h.after = o.tokens();
    }
    return p;
  }

  /** What was counted of a request sent as it stood: its tokens, with the compactor counting. */
  private record Counted(Compactor compactor, long tokens, Set<String> pending) {}

  /** Entries of {@link #counted} before it is emptied. */
  private static final int COUNTED_ENTRIES = 10_000;

  /**
   * Tokens of the request sent uncompacted last, by {@code conversation id @ version}: the
   * conversation as it stood then, so the next request of it counts only its new messages.
   */
  private final Map<String, Counted> counted = new ConcurrentHashMap<>();

  /**
   * The context size of this request when it is known to be below the budget without counting the
   * whole conversation again: the previous request of the stored conversation was sent as it stood
   * (its count kept in {@link #counted}), and that count plus the new messages' (the meter's sum:
   * per message, plus the reply priming already in the previous count) is below the budget, with no
   * tool call pending and the reminder off; with {@link ProxyPolicy#plansBelowBudget} on, the
   * compactor's cost planner must also be unable to act on it ({@link CostPlanner#mayMaskEarly}:
   * e.g. below {@link CostPlanner#planFrom} of the budget). Else -1: the compactor measures (and
   * compacts, plans an early masking, or reminds) as usual.
   */
  private long belowBudget(Plan p, List<Message> messages) {
    if (p.prior == null || p.policy.reminderOn()) {
      return -1; // the reminder's 90 % check is the compactor's
    }
    Counted before = counted.get(p.prior.id() + "@" + p.prior.version());
    if (before == null || before.compactor() != p.compactor || before.pending() == null) {
      return -1;
    }
    int prefix = (p.view == null ? 0 : p.view.size() - p.covered) + p.prior.lastLength();
    // The messages decode the items in order, so the new ones (of the items after the previous
    // request's) are a tail; the ones before it were counted, and their pending calls found, then.
    // Only the tail is read: the older messages' objects are left untouched.
    int first = messages.size();
    for (int k = messages.size() - 1; k >= 0; k--) {
      int i = p.api.sourceIndex(messages.get(k), p.effective);
      if (i < 0) {
        return -1;
      }
      if (i < prefix) {
        break;
      }
      first = k;
    }
    List<Message> added = messages.subList(first, messages.size());
    long tokens = before.tokens();
    for (Message m : added) {
      if (!m.uiOnly()) {
        tokens += p.compactor.counter().countMessage(m);
      }
    }
    long budget = p.compactor.budget().tokens();
    Set<String> pending = PendingCalls.of(before.pending(), added);
    if (tokens >= budget || !pending.isEmpty()) {
      return -1;
    }
    CostPlanner planner = p.compactor.planner();
    if (ProxyPolicy.DEFAULT.plansBelowBudget()
        && planner != null
        && planner.mayMaskEarly(messages, tokens, budget)) {
      return -1; // the cost planner may mask early: it plans on the compactor's measure
    }
    p.pending = pending;
    return tokens;
  }

  /** Remembers the count of a request sent as it stood, for the conversation's next request. */
  private void remember(Plan p, long version) {
    if (!"none".equals(p.headers.action) || p.headers.before < 0) {
      return;
    }
    if (counted.size() >= COUNTED_ENTRIES) {
      counted.clear();
    }
    if (p.prior != null) {
      counted.remove(p.prior.id() + "@" + p.prior.version());
    }
    counted.put(p.id + "@" + version, new Counted(p.compactor, p.headers.before, p.pending));
  }

  /** Sends the reminder, when the plan's policy wants it now: see {@link ProxyReminder}. */
  void reminded(Plan p, List<Message> messages, long tokensAfter) {
    List<JsonNode> view = p.api.encode(messages, p.effective);
    p.view = view;
    p.covered = p.items.size();
    p.reminded = p.compactions;
    p.send = bytes(p.api.body(p.body, view));
    p.headers.action = "reminded";
    p.headers.after = tokensAfter;
  }

  private String summaryFailure(Plan p) {
    String f = null;
    if (p.summarizer != null) {
      f = p.summarizer.takeFailure();
    }
    if (f != null) {
      metrics.summaryFallback(p.target.name());
      failure("the summary model", new IllegalStateException(f));
    }
    return f;
  }

  /** Finds the stored conversation this request continues, or decides a new one. */
  private void match(Context ctx, Plan p) {
    String key = ctx.header(CONVERSATION);
    if (key != null) {
      key = key.strip();
      if (key.isEmpty() || key.length() > MAX_KEY_LENGTH || key.chars().anyMatch(c -> c < 0x20)) {
        key = null;
      }
    }
    p.externalKey = key;
    ProxyStore.Conversation found = null;
    if (key != null) {
      ProxyStore.Conversation c = store.byKey(p.tenant, key).orElse(null);
      if (c != null && c.api().equals(p.api.name())) {
        if (continues(c, p)) {
          found = c;
        } else {
          p.forkedFrom = c.id();
          p.releaseKeyOf = c.id();
        }
      }
    } else {
      // The request's last chain digests first: a stored conversation continued there is longer
      // than any that ends earlier, so the earlier ones are looked up only when none is.
      int k = p.items.size();
      int split = Math.max(0, k - RECENT_DIGESTS);
      found = longestContinued(p, p.chain.subList(split, k));
      if (found == null && split > 0) {
        found = longestContinued(p, p.chain.subList(0, split));
      }
    }
    if (found != null) {
      p.prior = found;
      p.id = found.id();
      p.logFrom = Math.min(found.lastLength(), p.items.size());
      p.compactions = found.compactions();
      p.reminded = p.policy.reminderOn() ? store.reminded(found.id()) : -1;
      if (found.viewItems() != null && found.viewCovered() <= p.items.size()) {
        JsonNode v = Json.tryParse(found.viewItems());
        if (v != null && v.isArray()) {
          List<JsonNode> view = new ArrayList<>();
          v.forEach(view::add);
          p.view = view;
          p.covered = found.viewCovered();
        }
      }
    } else {
      p.id = "conv_" + HexFormat.of().formatHex(randomBytes());
      p.logFrom = 0;
      if (key == null && p.session != null) {
        // a new conversation of a known session: it forks from the session's latest
        p.forkedFrom =
            store
                .latestInSession(p.tenant, p.api.name(), p.session)
                .map(ProxyStore.Conversation::id)
                .orElse(null);
      }
    }
  }

  /**
   * Chain digests looked up first when a request is matched by content: a conversation continued
   * within its last few items (the reply's echo and a new message, a round of tool results).
   */
  private static final int RECENT_DIGESTS = 16;

  /**
   * Of the stored conversations (of the request's tenant, format and session) whose last request
   * ended in one of {@code digests}, the longest the request continues (of equal ones, the most
   * recently updated), or null.
   */
  private ProxyStore.Conversation longestContinued(Plan p, List<String> digests) {
    ProxyStore.Conversation found = null;
    for (ProxyStore.Conversation c :
        store.byLastDigest(p.tenant, p.api.name(), p.session, digests)) {
      if (continues(c, p) && (found == null || c.lastLength() > found.lastLength())) {
        found = c;
      }
    }
    return found;
  }

  /**
   * Whether the request continues the stored conversation: its last request's items are a prefix of
   * this one's (same chain digest) and the item after them is the echo of the stored reply; or this
   * is that same request again (a retry).
   */
  private static boolean continues(ProxyStore.Conversation c, Plan p) {
    int n = c.lastLength();
    int k = p.items.size();
    if (n < 1 || n > k || !p.chain.get(n - 1).equals(c.lastDigest())) {
      return false;
    }
    if (n == k) {
      return true; // the same request again
    }
    JsonNode reply = c.reply() == null ? null : Json.tryParse(c.reply());
    return p.api.sameMessage(reply, p.items.get(n));
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[12];
    RANDOM.nextBytes(b);
    return b;
  }

  /**
   * A compactor, the one its compactions use ({@link ProxyPolicy#deeper}, or null) and, when a
   * summary model is configured, its summarizer.
   */
  private record Planner(
      Compactor compactor, Compactor deeper, FallbackSummarizer summarizer, ProxyPolicy policy) {}

  private Planner compactor(
      String model, BudgetSetting budget, ProxySettings policy, String upstream) {
    String key =
        String.join(
            "\n",
            model,
            budget == null ? "" : budget.value() + "\t" + budget.source(),
            String.valueOf(policy.summaryModel()),
            String.valueOf(policy.target()),
            upstream);
    return compactors.computeIfAbsent(
        key,
        k -> {
          Compactor.Builder builder = Compactor.forModel(model);
          if (budget != null) {
            builder.budget(budget);
          }
          FallbackSummarizer summarizer = null;
          if (policy.summaryModel() != null) {
            String name = policy.summaryModel();
            summarizer =
                new FallbackSummarizer(
                    name,
                    () -> {
                      if (summaryModels == null) {
                        throw new IllegalStateException("no model clients for summaries");
                      }
                      return ModelSummarizer.builder(summaryModels.create(name)).build();
                    });
            builder.summarizer(summarizer);
          }
          Compactor trigger = builder.build();
          ProxyPolicy aim =
              policy.target() == null ? ProxyPolicy.DEFAULT : ProxyPolicy.of(policy.target());
          return new Planner(trigger, aim.deeper(builder, trigger), summarizer, aim);
        });
  }

  private static String action(String strategy) {
    return switch (strategy) {
      case MaskProvider.NAME -> "masked";
      case TrimProvider.NAME -> "trimmed";
      case SummarizeProvider.NAME -> "summarized";
      default -> strategy;
    };
  }

  // ------------------------------------------------------------------ overflow recovery

  /** An upstream answer that is not an overflow: relayed to the client as it is. */
  private static final class Relayed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient UpstreamClient.Answer answer;
    final transient byte[] error;

    Relayed(UpstreamClient.Answer answer, byte[] error) {
      super(null, null, false, false);
      this.answer = answer;
      this.error = error;
    }
  }

  private void recover(
      Context ctx,
      Plan plan,
      URI uri,
      List<String[]> headers,
      UpstreamClient.Answer first,
      byte[] firstError)
      throws IOException {
    AtomicInteger attempt = new AtomicInteger();
    AtomicReference<UpstreamClient.Answer> answered = new AtomicReference<>();
    AtomicReference<UpstreamClient.Answer> lastOverflow = new AtomicReference<>(first);
    AtomicReference<byte[]> lastError = new AtomicReference<>(firstError);
    AtomicReference<List<JsonNode>> sent = new AtomicReference<>();
    Function<ChatRequest, ChatResponse> send =
        request -> {
          if (attempt.getAndIncrement() == 0) {
            throw overflow(plan, firstError);
          }
          List<Message> visible = request.messages().stream().filter(m -> !m.uiOnly()).toList();
          List<JsonNode> items = plan.api.encode(visible, plan.effective);
          UpstreamClient.Answer a;
          try {
            a = client.send("POST", uri, headers, bytes(plan.api.body(plan.body, items)));
          } catch (IOException e) {
            throw new IllegalStateException("the upstream could not be reached: " + e, e);
          }
          if (a.ok()) {
            answered.set(a);
            sent.set(items);
            return new ChatResponse(
                Message.assistant("(relayed)"), null, null, null, null, null, plan.model);
          }
          byte[] error;
          try {
            error = a.readAll();
          } catch (IOException e) {
            throw new IllegalStateException("the upstream's error could not be read: " + e, e);
          }
          if (isOverflow(plan.api, a.status(), error, plan.model)) {
            lastOverflow.set(a);
            lastError.set(error);
            throw overflow(plan, error);
          }
          throw new Relayed(a, error);
        };
    Compactor c = plan.compactor;
    if (plan.conversation == null) {
      plan.conversation = c.compact(plan.messages).conversation(); // below the budget: as sent
    }
    PolicyContext pctx =
        PolicyContext.of(
            c.model(),
            c.budget().tokens(),
            CompressionConfig.builder().counter(c.counter()).build());
    OverflowRecovery recovery = new OverflowRecovery(Clock.systemUTC(), a -> {});
    try {
      RecoveryResult r =
          recovery.call(
              plan.conversation,
              ChatRequest.of(plan.conversation.activeMessages()),
              pctx,
              send,
              plan.api == WireApi.ANTHROPIC_MESSAGES
                  ? ViewValidator.Target.ANTHROPIC
                  : ViewValidator.Target.GENERIC);
      plan.view = sent.get();
      plan.covered = plan.items.size();
      plan.compactions++;
      plan.headers.action = "recovered";
      plan.headers.after =
          r.report().compactionReport().map(x -> x.tokensAfter()).orElse(plan.headers.after);
      plan.headers.compaction = r.report().compactionReport().orElse(null);
      try (UpstreamClient.Answer a = answered.get()) {
        relay(ctx, a, plan.headers, plan, null);
      }
    } catch (Relayed e) {
      writeBytes(ctx, e.answer, plan.headers, e.error);
    } catch (RecoveryFailedException e) {
      plan.headers.reason = "overflow recovery failed: " + e.getMessage();
      writeBytes(ctx, lastOverflow.get(), plan.headers, lastError.get());
    } catch (RuntimeException e) {
      failure("overflow recovery", e);
      plan.headers.reason = "overflow recovery failed: " + e.getClass().getSimpleName();
      writeBytes(ctx, lastOverflow.get(), plan.headers, lastError.get());
    }
  }

  private static ContextOverflowException overflow(Plan plan, byte[] error) {
    return new ContextOverflowException(
        "the upstream answered that the prompt does not fit",
        new ModelError(plan.api.provider, 400, null, null, ""),
        java.util.OptionalLong.empty(),
        java.util.OptionalLong.empty(),
        null,
        null);
  }

  /** Whether an upstream error says the prompt does not fit the context window. */
  static boolean isOverflow(WireApi api, int status, byte[] body, String model) {
    return ProviderErrors.isContextOverflow(
        api.provider, status, new String(body, StandardCharsets.UTF_8));
  }

  // ------------------------------------------------------------------ relaying

  private static void copyHeaders(
      jakarta.servlet.http.HttpServletResponse res, UpstreamClient.Answer a) {
    res.setStatus(a.status());
    for (Map.Entry<String, List<String>> e : a.headers().entrySet()) {
      String name = e.getKey();
      if (name == null
          || name.startsWith(":")
          || UpstreamClient.HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
        continue;
      }
      if (name.equalsIgnoreCase("content-type")) {
        res.setContentType(e.getValue().get(0));
        continue;
      }
      for (String v : e.getValue()) {
        res.addHeader(name, v);
      }
    }
  }

  private void writeBytes(Context ctx, UpstreamClient.Answer a, Headers h, byte[] body)
      throws IOException {
    var res = ctx.res();
    copyHeaders(res, a);
    h.apply(res);
    count(h, a.status());
    res.setContentLength(body.length);
    OutputStream out = res.getOutputStream();
    out.write(body);
    out.flush();
  }

  /**
   * Relays a 2xx answer: a JSON body whole (after storing the conversation, so that the client's
   * next request finds it), an event stream event by event, each flushed as it arrives (the
   * conversation stored before the final event is written).
   */
  private void relay(Context ctx, UpstreamClient.Answer a, Headers h, Plan plan, Object unused)
      throws IOException {
    if (!a.eventStream()) {
      byte[] body = a.readAll();
      if (plan != null && a.ok()) {
        save(plan, plan.api.replyOf(Json.tryParse(new String(body, StandardCharsets.UTF_8))));
      }
      writeBytes(ctx, a, h, body);
      return;
    }
    var res = ctx.res();
    copyHeaders(res, a);
    h.apply(res);
    count(h, a.status());
    OutputStream out = res.getOutputStream();
    out.flush(); // the status and headers go now
    StreamReply reply = plan == null ? null : plan.api.streamReply();
    EventSplitter events = new EventSplitter();
    boolean saved = false;
    byte[] buf = new byte[8192];
    try (InputStream in = a.body()) {
      int n;
      while ((n = in.read(buf)) > 0) {
        for (byte[] event : events.add(buf, n)) {
          if (reply != null) {
            reply.feed(event, 0, event.length);
            if (!saved && reply.finished()) {
              saved = true;
              save(plan, reply.reply());
            }
          }
          out.write(event);
          out.flush();
        }
      }
      byte[] rest = events.rest();
      if (rest.length > 0) {
        out.write(rest);
        out.flush();
      }
    }
    if (reply != null && !saved) {
      save(plan, reply.reply());
    }
  }

  /** Splits a byte stream into server-sent events (each with its closing blank line). */
  static final class EventSplitter {
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private int newlines;

    List<byte[]> add(byte[] buf, int len) {
      List<byte[]> out = new ArrayList<>(1);
      for (int i = 0; i < len; i++) {
        byte b = buf[i];
        pending.write(b);
        if (b == '\n') {
          newlines++;
          if (newlines == 2) {
            out.add(pending.toByteArray());
            pending.reset();
            newlines = 0;
          }
        } else if (b != '\r') {
          newlines = 0;
        }
      }
      return out;
    }

    byte[] rest() {
      return pending.toByteArray();
    }
  }

  // ------------------------------------------------------------------ storing

  private void save(Plan p, JsonNode reply) {
    try {
      List<ProxyStore.LogEntry> log = new ArrayList<>();
      for (int i = p.logFrom; i < p.items.size(); i++) {
        JsonNode item = p.items.get(i);
        log.add(new ProxyStore.LogEntry("client", ItemDigests.of(item), Json.write(item)));
      }
      String replyJson = reply == null ? null : Json.write(reply);
      if (reply != null) {
        log.add(new ProxyStore.LogEntry("reply", ItemDigests.of(reply), replyJson));
      }
      int k = p.items.size();
      String viewJson = null;
      if (p.view != null) {
        ArrayNode v = Json.array();
        p.view.forEach(v::add);
        viewJson = Json.write(v);
      }
      long version = p.prior == null ? 0 : p.prior.version() + 1;
      ProxyStore.Conversation next =
          new ProxyStore.Conversation(
              p.id,
              p.tenant,
              p.api.name(),
              p.externalKey,
              p.forkedFrom,
              k,
              p.chain.get(k - 1),
              replyJson,
              viewJson,
              null,
              p.view == null ? 0 : p.covered,
              p.compactions,
              version);
      ProxyStore.Activity activity = activity(p);
      boolean ok =
          store.save(next, p.prior == null ? -1 : p.prior.version(), p.releaseKeyOf, log, activity);
      if (ok) {
        remember(p, version);
      }
      if (!ok) {
        // Changed meanwhile (a concurrent request on the same conversation): keep this one as a
        // fork of its own, whole, rather than lose it or mix the two.
        List<ProxyStore.LogEntry> all = new ArrayList<>();
        for (JsonNode item : p.items) {
          all.add(new ProxyStore.LogEntry("client", ItemDigests.of(item), Json.write(item)));
        }
        if (reply != null) {
          all.add(log.get(log.size() - 1));
        }
        ProxyStore.Conversation fork =
            new ProxyStore.Conversation(
                "conv_" + HexFormat.of().formatHex(randomBytes()),
                p.tenant,
                p.api.name(),
                null,
                p.id,
                next.lastLength(),
                next.lastDigest(),
                next.reply(),
                next.viewItems(),
                null,
                next.viewCovered(),
                next.compactions(),
                0);
        if (store.save(fork, -1, null, all, activity) && p.externalKey == null) {
          p.headers.conversation = fork.id(); // a JSON answer is written after this: it says so
        }
      }
    } catch (RuntimeException e) {
      failure("storing the conversation", e);
    }
  }

  private static ProxyStore.Activity activity(Plan p) {
    return new ProxyStore.Activity(
        p.session,
        p.target.name(),
        p.model,
        p.headers.after >= 0 ? p.headers.after : p.headers.before,
        p.reminded,
        ProxyStore.Request.of(
            p.headers.action, p.headers.before, p.headers.after, p.headers.compaction));
  }

  /** Counts one answer to the client (see {@link ProxyMetrics}). */
  private void count(Headers h, int status) {
    try {
      metrics.answered(h.upstream, h.api, h.action, h.before, h.after);
      if ("passthrough".equals(h.action)) {
        metrics.passthrough(h.upstream, ProxyMetrics.reasonCode(h.reason));
      }
      if (status >= 400) {
        metrics.upstreamError(h.upstream, status >= 500 ? "http_5xx" : "http_4xx");
      }
    } catch (RuntimeException e) {
      failure("counting", e);
    }
  }

  // ------------------------------------------------------------------ errors

  private void failure(String what, Exception e) {
    StackTraceElement[] st = e.getStackTrace();
    ObjectNode o = Json.object();
    o.put("ts", Instant.now().toString());
    o.put("level", "warn");
    o.put("proxy", what + " failed; the request went on");
    o.put("exception", e.getClass().getName());
    if (st.length > 0) {
      o.put("at", st[0].toString());
    }
    synchronized (log) {
      log.println(Json.write(o));
      log.flush();
    }
  }

  private static void noUpstream(Context ctx) {
    String name = ctx.pathParamMap().getOrDefault("upstream", "?");
    ownError(
        ctx,
        404,
        "not_found",
        "no upstream named \"" + name + "\": configure it with --upstream " + name + "=URL");
  }

  private void upstreamUnreachable(Context ctx, Target t, Exception e) {
    metrics.upstreamError(t.name(), "unreachable");
    ownError(
        ctx,
        502,
        "upstream_unreachable",
        "the upstream "
            + t.name()
            + " ("
            + t.baseUrl()
            + ") could not be reached: "
            + e.getClass().getSimpleName()
            + (e.getMessage() == null ? "" : ": " + e.getMessage()));
  }

  private static void ownError(Context ctx, int status, String code, String message) {
    ObjectNode o = Json.object();
    o.putObject("error").put("code", code).put("message", message);
    ctx.status(status).contentType("application/json").result(Json.write(o));
  }

  private static byte[] bytes(JsonNode node) {
    return Json.write(node).getBytes(StandardCharsets.UTF_8);
  }
}
