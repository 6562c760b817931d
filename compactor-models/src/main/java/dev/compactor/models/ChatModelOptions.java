package dev.compactor.models;

import dev.compactor.core.model.ModelApi;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

/**
 * How a model client is set up: key, base URL, API choice, retries, timeouts, HTTP client.
 *
 * <p>Resolution, first match wins: the API key from {@link #apiKey()}, then the provider's key
 * variable ({@code OPENAI_API_KEY}, {@code ANTHROPIC_API_KEY}) in {@link #env()}; the base URL from
 * {@link #baseUrl()}, then {@code OPENAI_BASE_URL} / {@code ANTHROPIC_BASE_URL} in {@link #env()},
 * then the provider default. The environment is a map so tests and servers can pass their own;
 * {@link #defaults()} uses the process environment.
 *
 * <p>The key is never printed: {@link #toString()} masks it. Immutable, thread-safe (the injected
 * {@link Random} and {@link Sleeper} must be thread-safe if the client is shared).
 *
 * <pre>{@code
 * ChatModelOptions o = ChatModelOptions.builder()
 *     .baseUrl("http://gpu-box:8000/v1")
 *     .retryPolicy(RetryPolicy.defaults().withMaxAttempts(6))
 *     .build();
 * }</pre>
 */
public final class ChatModelOptions {
  /** Default time to wait for a response (for streams: for the response headers). */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMinutes(10);

  /**
   * Default limit of one call, retries and their waits included: 2 minutes. A stalled server or a
   * storm of retryable errors fails the call then, naming the limit.
   */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

  private final String apiKey;
  private final String baseUrl;
  private final Map<String, String> env;
  private final ModelApi api;
  private final RetryPolicy retryPolicy;
  private final Sleeper sleeper;
  private final Random random;
  private final Clock clock;
  private final HttpClient httpClient;
  private final Duration requestTimeout;
  private final Duration timeout;
  private final Map<String, String> headers;

  private ChatModelOptions(Builder b) {
    this.apiKey = blankToNull(b.apiKey);
    this.baseUrl = blankToNull(b.baseUrl);
    this.env = b.env == null ? System.getenv() : Map.copyOf(b.env);
    this.api = b.api;
    this.retryPolicy = Objects.requireNonNull(b.retryPolicy, "retryPolicy");
    this.sleeper = Objects.requireNonNull(b.sleeper, "sleeper");
    this.random = b.random == null ? new Random() : b.random;
    this.clock = Objects.requireNonNull(b.clock, "clock");
    this.httpClient = b.httpClient;
    this.requestTimeout = Objects.requireNonNull(b.requestTimeout, "requestTimeout");
    this.timeout = Objects.requireNonNull(b.timeout, "timeout");
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must be > 0, got " + timeout);
    }
    if (requestTimeout.isZero() || requestTimeout.isNegative()) {
      throw new IllegalArgumentException("requestTimeout must be > 0, got " + requestTimeout);
    }
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
  }

  /** Everything at its default; keys and base URLs from the process environment. */
  public static ChatModelOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder pre-filled with these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.apiKey = apiKey;
    b.baseUrl = baseUrl;
    b.env = env;
    b.api = api;
    b.retryPolicy = retryPolicy;
    b.sleeper = sleeper;
    b.random = random;
    b.clock = clock;
    b.httpClient = httpClient;
    b.requestTimeout = requestTimeout;
    b.timeout = timeout;
    b.headers = new LinkedHashMap<>(headers);
    return b;
  }

  /** The explicit API key, or null. */
  public String apiKey() {
    return apiKey;
  }

  /** The explicit base URL ({@code --base-url}), or null. */
  public String baseUrl() {
    return baseUrl;
  }

  /** The environment keys and base URLs are read from. */
  public Map<String, String> env() {
    return env;
  }

  /** The API to use for {@code openai/…} (and OpenAI-compatible) models, or null to decide. */
  public ModelApi api() {
    return api;
  }

  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  public Sleeper sleeper() {
    return sleeper;
  }

  public Random random() {
    return random;
  }

  /** The clock HTTP-date {@code Retry-After} values are measured against. */
  public Clock clock() {
    return clock;
  }

  /** The HTTP client to use, or null for a shared HTTP/1.1 client. */
  public HttpClient httpClient() {
    return httpClient;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  /**
   * The most one call may take, every attempt and every wait between retries included (default
   * {@link #DEFAULT_TIMEOUT}); an attempt is cut off when the time is up, and no retry starts that
   * could not finish within it.
   */
  public Duration timeout() {
    return timeout;
  }

  /** Extra headers sent with every request (e.g. {@code OpenAI-Project}). */
  public Map<String, String> headers() {
    return headers;
  }

  @Override
  public String toString() {
    return "ChatModelOptions[apiKey="
        + (apiKey == null ? "unset" : "***")
        + ", baseUrl="
        + baseUrl
        + ", api="
        + api
        + ", retryPolicy="
        + retryPolicy
        + ", requestTimeout="
        + requestTimeout
        + ", timeout="
        + timeout
        + ", headers="
        + headers.keySet()
        + "]";
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  /** Builder of {@link ChatModelOptions}. */
  public static final class Builder {
    private String apiKey;
    private String baseUrl;
    private Map<String, String> env;
    private ModelApi api;
    private RetryPolicy retryPolicy = RetryPolicy.defaults();
    private Sleeper sleeper = Sleeper.SYSTEM;
    private Random random;
    private Clock clock = Clock.systemUTC();
    private HttpClient httpClient;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration timeout = DEFAULT_TIMEOUT;
    private Map<String, String> headers = new LinkedHashMap<>();

    private Builder() {}

    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey;
      return this;
    }

    public Builder baseUrl(String baseUrl) {
      this.baseUrl = baseUrl;
      return this;
    }

    /** The environment to read keys and base URLs from (default: the process environment). */
    public Builder env(Map<String, String> env) {
      this.env = env;
      return this;
    }

    public Builder api(ModelApi api) {
      this.api = api;
      return this;
    }

    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = sleeper;
      return this;
    }

    /** Randomness of the backoff jitter; pass a seeded one for reproducible waits. */
    public Builder random(Random random) {
      this.random = random;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = httpClient;
      return this;
    }

    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
      return this;
    }

    /** See {@link ChatModelOptions#timeout()}. */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    public Builder header(String name, String value) {
      this.headers.put(Objects.requireNonNull(name, "header name"), value);
      return this;
    }

    public ChatModelOptions build() {
      return new ChatModelOptions(this);
    }
  }
}
