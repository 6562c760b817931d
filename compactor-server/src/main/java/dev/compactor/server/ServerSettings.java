package dev.compactor.server;

import dev.compactor.models.ChatModelOptions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a {@link CompactorServer} listens and what it accepts. Immutable; build with {@link
 * #builder()}.
 *
 * @param host the address to bind ({@value #DEFAULT_HOST} by default); anything but a loopback
 *     address requires API keys
 * @param port the port; 0 picks a free one
 * @param maxBodyBytes largest request body accepted (default 10 MB); larger is {@code 413}
 * @param maxMessagesPerCall most messages one chat-task call may bring (default {@value
 *     #DEFAULT_MAX_MESSAGES})
 * @param idleTimeout how long a connection may stay silent (a client that stalls while sending its
 *     body is cut off after it; no chat is held while a body is read)
 * @param shutdownGrace how long a stopping server lets in-flight calls finish
 * @param logContent whether request log lines may carry message content (debugging only)
 * @param upstreams the named model providers, by name
 * @param proxyRetention how long a proxy conversation is kept after its last request (default 7
 *     days); {@link Duration#ZERO} keeps them forever
 * @param modelTimeout the longest one call of the server's own model clients may take, retries
 *     included ({@code serve --timeout}; default {@link ChatModelOptions#DEFAULT_TIMEOUT}): the
 *     proxy's summary models
 */
public record ServerSettings(
    String host,
    int port,
    long maxBodyBytes,
    int maxMessagesPerCall,
    Duration idleTimeout,
    Duration shutdownGrace,
    boolean logContent,
    Map<String, Upstream> upstreams,
    Duration proxyRetention,
    Duration modelTimeout) {
  /** The default bind address. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** The default port. */
  public static final int DEFAULT_PORT = 8080;

  /**
   * The body limit of proxied requests, which carry whole conversations: 64 MB, above what the
   * providers accept (Anthropic's request limit is 32 MB), so that the proxy is never the reason a
   * request fails; the provider's own limit answers beyond it.
   */
  public static final long PROXY_MAX_BODY_BYTES = 64L * 1024 * 1024;

  /** The default body limit: 10 MB. */
  public static final long DEFAULT_MAX_BODY_BYTES = 10L * 1024 * 1024;

  /** The default number of messages a call may bring. */
  public static final int DEFAULT_MAX_MESSAGES = 10_000;

  /** The default idle timeout of a connection. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);

  /** The default time in-flight calls get to finish on shutdown. */
  public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

  /** The default retention of proxy conversations: 7 days since their last request. */
  public static final Duration DEFAULT_PROXY_RETENTION = Duration.ofDays(7);

  public ServerSettings {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0 to 65535, got " + port);
    }
    if (maxBodyBytes < 1024) {
      throw new IllegalArgumentException(
          "the body limit must be at least 1024 bytes, got " + maxBodyBytes);
    }
    if (maxMessagesPerCall < 1) {
      throw new IllegalArgumentException(
          "messages per call must be at least 1, got " + maxMessagesPerCall);
    }
    requirePositive(idleTimeout, "idle timeout");
    requirePositive(shutdownGrace, "shutdown grace");
    upstreams = Map.copyOf(upstreams);
    Objects.requireNonNull(proxyRetention, "proxyRetention");
    if (proxyRetention.isNegative()) {
      throw new IllegalArgumentException(
          "proxy retention must be 0 (keep forever) or positive, got " + proxyRetention);
    }
    requirePositive(modelTimeout, "model timeout");
  }

  private static void requirePositive(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
  }

  /** The defaults: {@value #DEFAULT_HOST}:{@value #DEFAULT_PORT}, 10 MB bodies, no upstreams. */
  public static ServerSettings defaults() {
    return builder().build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builder of {@link ServerSettings}. */
  public static final class Builder {
    private String host = DEFAULT_HOST;
    private int port = DEFAULT_PORT;
    private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private int maxMessagesPerCall = DEFAULT_MAX_MESSAGES;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
    private boolean logContent;
    private final Map<String, Upstream> upstreams = new LinkedHashMap<>();
    private Duration proxyRetention = DEFAULT_PROXY_RETENTION;
    private Duration modelTimeout = ChatModelOptions.DEFAULT_TIMEOUT;

    private Builder() {}

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder maxBodyBytes(long maxBodyBytes) {
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    public Builder maxMessagesPerCall(int maxMessagesPerCall) {
      this.maxMessagesPerCall = maxMessagesPerCall;
      return this;
    }

    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout = idleTimeout;
      return this;
    }

    public Builder shutdownGrace(Duration shutdownGrace) {
      this.shutdownGrace = shutdownGrace;
      return this;
    }

    public Builder logContent(boolean logContent) {
      this.logContent = logContent;
      return this;
    }

    /** Adds (or replaces) the upstream of that name. */
    public Builder upstream(Upstream upstream) {
      upstreams.put(upstream.name(), upstream);
      return this;
    }

    /** How long proxy conversations are kept after their last request; zero: forever. */
    public Builder proxyRetention(Duration proxyRetention) {
      this.proxyRetention = proxyRetention;
      return this;
    }

    /** The longest one call of the server's own model clients may take, retries included. */
    public Builder modelTimeout(Duration modelTimeout) {
      this.modelTimeout = modelTimeout;
      return this;
    }

    public ServerSettings build() {
      return new ServerSettings(
          host,
          port,
          maxBodyBytes,
          maxMessagesPerCall,
          idleTimeout,
          shutdownGrace,
          logContent,
          upstreams,
          proxyRetention,
          modelTimeout);
    }
  }
}
