package dev.compactor.server;

import dev.compactor.chat.ChatDetails;
import dev.compactor.chat.ChatModelFactory;
import dev.compactor.chat.ChatTaskResult;
import dev.compactor.chat.ChatTaskService.SummarizeResult;
import dev.compactor.chat.base.CallUsage;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.CompactionDetails;
import dev.compactor.chat.base.CompactionDetails.ProviderReport;
import dev.compactor.chat.base.CompactionDetails.SummaryReport;
import dev.compactor.chat.store.ChatStoreException;
import dev.compactor.core.model.AuthenticationException;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.ModelTimeoutException;
import dev.compactor.core.model.StreamListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The server's metrics, served at {@code GET /metrics} in the Prometheus text format: HTTP requests
 * by route template and status, chat-task operations, model calls, compactions, summaries, tokens,
 * overflow recoveries and store errors (the names are listed in docs/server.md, "Metrics").
 *
 * <p>Labels carry only bounded, non-secret values: route templates ({@code
 * /v1/chats/{chat_id}/calls}, never a raw path), status codes, error codes, provider (upstream)
 * names, wire APIs, compaction kinds, triggers and reasons. Never an API key, a tenant, a chat id,
 * a model name a caller typed or message content.
 *
 * <p>Model-call latency is measured on the clients the chat-task service uses: build the service
 * with {@code ChatTaskService.builder(store).models(metrics.models(factory))}. Thread-safe.
 */
public final class ServerMetrics {
  /** Buckets of the HTTP request histogram. */
  private static final Duration[] HTTP_BUCKETS =
      durations(1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 120_000);

  /** Buckets of the chat-task and model-call histograms: model calls take longer. */
  private static final Duration[] MODEL_BUCKETS =
      durations(
          5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000,
          300_000);

  private static final Set<String> METHODS =
      Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT");

  private final PrometheusMeterRegistry registry;
  private final java.util.Map<String, Timer> requestTimers =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Metrics in a fresh registry, with the JVM's memory, threads, processor and uptime. */
  public ServerMetrics() {
    this(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /** Metrics in {@code registry} (e.g. one an embedding application shares). */
  public ServerMetrics(PrometheusMeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** The registry the metrics live in. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition of every metric. */
  public String scrape() {
    return registry.scrape();
  }

  /** The content type of {@link #scrape()}: the Prometheus text format 0.0.4. */
  static String contentType() {
    return "text/plain; version=0.0.4; charset=utf-8";
  }

  /**
   * {@code factory} with every client it makes timed: {@code compactor_model_call_seconds} by
   * provider (the part of the model name before {@code /}, for the server the upstream name), wire
   * API and outcome. Each attempt an overflow recovery makes is one call; the client's own retries
   * (429, 5xx) are inside one call.
   */
  public ChatModelFactory models(ChatModelFactory factory) {
    Objects.requireNonNull(factory, "factory");
    return model -> {
      ChatModel client = factory.create(model);
      return client == null ? null : new TimedModel(client, providerOf(model), this);
    };
  }

  // ------------------------------------------------------------------ proxy

  /**
   * What the compacting proxy counts, into this registry: {@code compactor_proxy_requests_total
   * {upstream, api, action}}, {@code compactor_proxy_passthroughs_total{upstream, reason}}, {@code
   * compactor_proxy_upstream_errors_total{upstream, error}}, {@code compactor_proxy_tokens_total
   * {upstream, stage}} ({@code before}: the conversation as the client sent it, {@code after}: what
   * was sent), {@code compactor_proxy_summary_fallbacks_total{upstream}} and {@code
   * compactor_proxy_retention_deleted_total}.
   */
  public dev.compactor.server.proxy.ProxyMetrics proxy() {
    return proxyMetrics;
  }

  private final dev.compactor.server.proxy.ProxyMetrics proxyMetrics =
      new dev.compactor.server.proxy.ProxyMetrics() {
        @Override
        public void answered(
            String upstream, String api, String action, long tokensBefore, long tokensAfter) {
          Counter.builder("compactor.proxy.requests")
              .description("Proxied requests by upstream, wire API and what the proxy did")
              .tag("upstream", upstream)
              .tag("api", api)
              .tag("action", action)
              .register(registry)
              .increment();
          if (tokensBefore >= 0 && tokensAfter >= 0) {
            proxyTokens(upstream, "before").increment(tokensBefore);
            proxyTokens(upstream, "after").increment(tokensAfter);
          }
        }

        @Override
        public void passthrough(String upstream, String reason) {
          Counter.builder("compactor.proxy.passthroughs")
              .description("Proxied requests forwarded unread, by reason")
              .tag("upstream", upstream)
              .tag("reason", reason)
              .register(registry)
              .increment();
        }

        @Override
        public void upstreamError(String upstream, String kind) {
          Counter.builder("compactor.proxy.upstream.errors")
              .description("Upstream failures: unreachable, or an error status relayed")
              .tag("upstream", upstream)
              .tag("error", kind)
              .register(registry)
              .increment();
        }

        @Override
        public void summaryFallback(String upstream) {
          Counter.builder("compactor.proxy.summary.fallbacks")
              .description(
                  "Summaries the extractive summarizer wrote after the summary model failed")
              .tag("upstream", upstream)
              .register(registry)
              .increment();
        }

        @Override
        public void retentionDeleted(int n) {
          Counter.builder("compactor.proxy.retention.deleted")
              .description("Proxy conversations deleted by the retention sweep")
              .register(registry)
              .increment(n);
        }
      };

  private Counter proxyTokens(String upstream, String stage) {
    return Counter.builder("compactor.proxy.tokens")
        .description("Tokens of proxied conversations: before (as sent by the client), after")
        .tag("upstream", upstream)
        .tag("stage", stage)
        .register(registry);
  }

  // ------------------------------------------------------------------ HTTP

  /**
   * One answered request: {@code http_server_requests_seconds{method, route, status}}. A method
   * outside the standard ones is counted as {@code other} (clients may send any token).
   */
  void request(String method, String route, int status, double millis) {
    String m = METHODS.contains(method) ? method : "other";
    // kept by its labels (bounded: methods, route templates, statuses): building the timer and
    // finding it in the registry again cost more than recording, on every request
    requestTimers
        .computeIfAbsent(
            m + "\n" + route + "\n" + status,
            k ->
                Timer.builder("http.server.requests")
                    .description("HTTP requests by method, route template and status")
                    .tag("method", m)
                    .tag("route", route)
                    .tag("status", Integer.toString(status))
                    .serviceLevelObjectives(HTTP_BUCKETS)
                    .register(registry))
        .record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
  }

  /** The store failed under {@code route}: {@code compactor_store_errors_total{route}}. */
  void storeError(String route) {
    Counter.builder("compactor.store.errors")
        .description("Store failures (database unreachable, a statement failed)")
        .tag("route", route)
        .register(registry)
        .increment();
  }

  // ------------------------------------------------------------------ chat tasks

  /** Runs and records one chat-task call. */
  ChatTaskResult call(Supplier<ChatTaskResult> call) {
    return timedOperation("call", "auto", call, this::recordCall);
  }

  /** Runs and records one on-demand summarization. */
  SummarizeResult summarize(Supplier<SummarizeResult> summarize) {
    return timedOperation("summarize", "on_demand", summarize, this::recordSummarize);
  }

  /**
   * Runs one chat-task operation and records its outcome ({@code ok}, the error code, {@code
   * store_error}) and duration; a failed summary counts as one of {@code summaryTrigger}.
   */
  private <T> T timedOperation(
      String operation, String summaryTrigger, Supplier<T> run, Consumer<T> record) {
    long t0 = System.nanoTime();
    String outcome = "error";
    try {
      T r = run.get();
      outcome = "ok";
      record.accept(r);
      return r;
    } catch (ChatTaskException e) {
      outcome = e.code().wireName();
      if (e.code() == ChatTaskException.Code.SUMMARIZE_FAILED) {
        summary(summaryTrigger, "failed");
      }
      throw e;
    } catch (ChatStoreException e) {
      outcome = "store_error";
      throw e;
    } finally {
      operation(operation, outcome, System.nanoTime() - t0);
    }
  }

  private void recordSummarize(SummarizeResult r) {
    SummaryReport report = r.report();
    if (report.activated()) {
      compacted("summary", "on_demand", report, r.usage());
    } else {
      skipped("summary", "on_demand", report.reason());
    }
  }

  private void recordCall(ChatTaskResult r) {
    ChatDetails d = r.details();
    tokens("chat", r.usage());
    CompactionDetails c = d.compaction();
    if (c != null) {
      SummaryReport s = c.summary();
      if (s != null && s.activated()) {
        compacted("summary", "auto", s, d.summaryUsage());
      } else if (s != null) {
        skipped("summary", "auto", s.reason());
      }
      ProviderReport p = c.provider();
      if (p != null && p.compacted()) {
        compactions("provider", "auto").increment();
      } else if (p != null) {
        skipped("provider", "auto", p.reason());
      }
    }
    Integer retries = d.overflowRetries();
    if (retries != null && retries > 0) {
      Counter.builder("compactor.overflow.recoveries")
          .description(
              "Chat-task calls that fitted the context window only after overflow recovery")
          .register(registry)
          .increment();
      Counter.builder("compactor.overflow.recovery.retries")
          .description("Smaller inputs overflow recovery tried")
          .register(registry)
          .increment(retries);
    }
  }

  private void compacted(String kind, String trigger, SummaryReport s, CallUsage usage) {
    compactions(kind, trigger).increment();
    summary(trigger, "created");
    compactionMessages(kind, trigger, "before", s.messageCountBefore());
    compactionMessages(kind, trigger, "after", s.messageCountAfter());
    if (usage != null) {
      tokens("summary", usage);
      compactionTokens(kind, trigger, "before", usage.promptTokens());
      compactionTokens(kind, trigger, "after", usage.completionTokens());
    }
  }

  private void compactionMessages(String kind, String trigger, String stage, long messages) {
    Counter.builder("compactor.compaction.messages")
        .description("Messages in the chat before and after summary compaction")
        .tag("kind", kind)
        .tag("trigger", trigger)
        .tag("stage", stage)
        .register(registry)
        .increment(messages);
  }

  private void compactionTokens(String kind, String trigger, String stage, long tokens) {
    Counter.builder("compactor.compaction.tokens")
        .description(
            "Tokens of what summary compaction replaced (before: the summary call's prompt) and"
                + " of what replaced it (after: the summary call's completion), as the provider"
                + " counted them")
        .tag("kind", kind)
        .tag("trigger", trigger)
        .tag("stage", stage)
        .register(registry)
        .increment(tokens);
  }

  private Counter compactions(String kind, String trigger) {
    return Counter.builder("compactor.compactions")
        .description("Compactions by kind (summary, provider) and trigger (auto, on_demand)")
        .tag("kind", kind)
        .tag("trigger", trigger)
        .register(registry);
  }

  private void skipped(String kind, String trigger, String reason) {
    Counter.builder("compactor.compactions.skipped")
        .description("Calls of chats with compaction settings that did not compact, by reason")
        .tag("kind", kind)
        .tag("trigger", trigger)
        .tag("reason", reason == null ? "unknown" : reason)
        .register(registry)
        .increment();
  }

  private void summary(String trigger, String outcome) {
    Counter.builder("compactor.summaries")
        .description("Summarizations by trigger (auto, on_demand) and outcome (created, failed)")
        .tag("trigger", trigger)
        .tag("outcome", outcome)
        .register(registry)
        .increment();
  }

  private void tokens(String purpose, CallUsage usage) {
    if (usage == null) {
      return;
    }
    tokenCounter(purpose, "prompt").increment(usage.promptTokens());
    tokenCounter(purpose, "completion").increment(usage.completionTokens());
  }

  private Counter tokenCounter(String purpose, String type) {
    return Counter.builder("compactor.model.tokens")
        .description("Tokens the provider reported, by purpose (chat, summary) and type")
        .tag("purpose", purpose)
        .tag("type", type)
        .register(registry);
  }

  private void operation(String operation, String outcome, long nanos) {
    Timer.builder("compactor.chat.task")
        .description("Chat-task operations (call, summarize) by outcome: ok or the error code")
        .tag("operation", operation)
        .tag("outcome", outcome)
        .serviceLevelObjectives(MODEL_BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  // ------------------------------------------------------------------ model calls

  private void modelCall(String provider, ModelApi api, String outcome, long nanos) {
    Timer.builder("compactor.model.call")
        .description("Model calls by provider (upstream), wire API and outcome")
        .tag("provider", provider)
        .tag("api", api == null ? "unknown" : api.wireName())
        .tag("outcome", outcome)
        .serviceLevelObjectives(MODEL_BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** The provider part of a model name that a factory accepted ({@code gpu-box/qwen3}). */
  static String providerOf(String model) {
    int slash = model == null ? -1 : model.indexOf('/');
    return slash <= 0 ? "unknown" : model.substring(0, slash).strip().toLowerCase(Locale.ROOT);
  }

  /** How a model call ended, as a label: ok, timeout, rate_limited, context_overflow, … */
  static String modelOutcome(Throwable e) {
    if (e instanceof ModelTimeoutException) {
      return "timeout";
    }
    if (e instanceof ContextOverflowException) {
      return "context_overflow";
    }
    if (e instanceof AuthenticationException) {
      return "unauthorized";
    }
    if (e instanceof ModelException m && m.httpStatus() == 429) {
      return "rate_limited";
    }
    return "error";
  }

  private static Duration[] durations(long... millis) {
    Duration[] d = new Duration[millis.length];
    for (int i = 0; i < millis.length; i++) {
      d[i] = Duration.ofMillis(millis[i]);
    }
    return d;
  }

  /** A client whose calls are timed. */
  private static final class TimedModel implements ChatModel {
    private final ChatModel delegate;
    private final String provider;
    private final ServerMetrics metrics;

    TimedModel(ChatModel delegate, String provider, ServerMetrics metrics) {
      this.delegate = delegate;
      this.provider = provider;
      this.metrics = metrics;
    }

    @Override
    public String provider() {
      return delegate.provider();
    }

    @Override
    public String model() {
      return delegate.model();
    }

    @Override
    public ModelApi api() {
      return delegate.api();
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
      return timed(() -> delegate.chat(request));
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
      return timed(() -> delegate.stream(request, listener));
    }

    private ChatResponse timed(Supplier<ChatResponse> call) {
      long t0 = System.nanoTime();
      String outcome = "error";
      try {
        ChatResponse r = call.get();
        outcome = "ok";
        return r;
      } catch (RuntimeException e) {
        outcome = modelOutcome(e);
        throw e;
      } finally {
        metrics.modelCall(provider, delegate.api(), outcome, System.nanoTime() - t0);
      }
    }
  }
}
