package dev.compactor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.SqliteChatStore;
import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.replay.RecordedConversation;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;
import dev.compactor.replay.ReplayStrategy;
import dev.compactor.replay.report.ReplayJson;
import dev.compactor.server.CompactorServer;
import dev.compactor.server.ServerMetrics;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.Upstream;
import dev.compactor.server.proxy.ProxyRoutes;
import dev.compactor.server.proxy.ProxyStore;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import dev.compactor.wire.anthropic.AnthropicMessages;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replay through the proxy: a {@link ReplayStrategy} named {@value #NAME} (or {@code
 * proxy-anthropic}) whose calls go over real HTTP, as the agent's client sent them (the whole
 * history on every call, in the OpenAI Chat Completions or the Anthropic Messages shape, see {@link
 * Api}), to a real compacting proxy ({@link CompactorServer} on 127.0.0.1 port 0 with a temporary
 * SQLite store), in front of the testkit's {@link FakeModelServer}, which answers each call with
 * the recorded assistant message (so the conversation goes on as recorded and the proxy matches it
 * by content). The view each call is measured on is what the fake provider received: the {@code
 * messages} of the last request it accepted for that call, decoded.
 *
 * <p>Every upstream request is counted ({@link Tally}): those the fake refused as a provider would
 * (invalid, or over its context window, which is the replay's window when {@code --window} is
 * given) and the tokens of each request's leading items that are byte-identical (as JSON text) with
 * the previous request's, the prompt-cache reads the replay's cost model prices; the replay's own
 * message-wise figure must agree with it.
 *
 * <p>A compaction the proxy reports ({@code x-compactor-action} masked, trimmed, summarized,
 * recovered) is a compaction event; a summary also counts as a summary call with the tokens of the
 * messages it replaced as input and the messages it added as output, as a model-backed summarizer
 * would be billed.
 *
 * <p>In the Anthropic shape, as Claude Code sends it: the system prompt as top-level {@code system}
 * text blocks, consecutive messages of one side as one turn (tool results as {@code tool_result}
 * blocks opening the user turn, an assistant's tool calls as {@code tool_use} blocks, its reasoning
 * as {@code thinking} blocks), and {@code cache_control} markers on the system prompt and on the
 * last block of each of the last {@value #MARKED_TURNS} turns. The cache reads are computed from
 * the bytes without the markers (moving a breakpoint does not change the cached prefix), item by
 * item: the system prompt, each tool result and the rest of each turn ({@link #turnItems}).
 *
 * <p>Thread-safe: sessions run on several threads against the one proxy. Close it to stop the
 * servers and delete the temporary store.
 */
final class ProxyReplay implements ReplayStrategy, AutoCloseable {
  /** The strategy's name in reports. */
  static final String NAME = "proxy";

  /** Header that tells the fake provider which replayed conversation a request belongs to. */
  static final String SESSION_HEADER = "x-replay-session";

  /** Turns of an Anthropic request whose last block carries a {@code cache_control} marker. */
  static final int MARKED_TURNS = 2;

  /** The signature given to recorded reasoning sent as Anthropic {@code thinking} blocks. */
  static final String UNSIGNED = "replay-unsigned";

  /** Text of the user turn put first when a recording's first turn is the assistant's. */
  static final String LEADING_USER_TEXT = "(The recorded conversation starts with the assistant.)";

  /** The request shape the replay's client speaks. */
  enum Api {
    /** OpenAI Chat Completions, {@code POST /v1/chat/completions}, upstream {@code openai}. */
    OPENAI("openai", "/v1/chat/completions", NAME),
    /** Anthropic Messages, {@code POST /v1/messages}, upstream {@code anthropic}. */
    ANTHROPIC("anthropic", "/v1/messages", NAME + "-anthropic");

    /** The value of {@code --proxy-api} and the upstream's name. */
    final String id;

    /** The proxy's route. */
    final String route;

    /** The strategy's name in reports. */
    final String strategy;

    Api(String id, String route, String strategy) {
      this.id = id;
      this.route = route;
      this.strategy = strategy;
    }

    /**
     * The shape named {@code id} ({@code openai} or {@code anthropic}).
     *
     * @throws IllegalArgumentException naming the value and {@code source}
     */
    static Api of(String id, String source) {
      for (Api a : values()) {
        if (a.id.equals(id.strip().toLowerCase(Locale.ROOT))) {
          return a;
        }
      }
      throw new IllegalArgumentException(
          source + " " + id + ": the replay's client speaks openai or anthropic");
    }
  }

  private final Api api;

  private final Path dir;
  private final FakeModelServer provider;
  private final ChatStore chats;
  private final ProxyStore proxyStore;
  private final CompactorServer server;
  private final HttpClient http;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final Tally tally = new Tally();
  private final Map<String, Integer> lineTokens = new ConcurrentHashMap<>();
  private volatile Map<String, List<String>> keptBodies;

  /** Lines whose token counts the fake provider's counter keeps. */
  private static final int LINE_CACHE_ENTRIES = 200_000;

  /** What every upstream request looked like, over all sessions. */
  static final class Tally {
    final AtomicLong calls = new AtomicLong();
    final AtomicLong upstreamRequests = new AtomicLong();
    final AtomicLong refusedInvalid = new AtomicLong();
    final AtomicLong refusedOverWindow = new AtomicLong();
    final AtomicLong extraAccepted = new AtomicLong();
    final AtomicLong passthroughs = new AtomicLong();
    final AtomicLong byteCachedTokens = new AtomicLong();
    final Map<String, AtomicLong> actions = new ConcurrentHashMap<>();
    final List<String> refusals = java.util.Collections.synchronizedList(new ArrayList<>());

    long upstreamRequests() {
      return upstreamRequests.get();
    }

    long refused() {
      return refusedInvalid.get() + refusedOverWindow.get();
    }

    long refusedInvalid() {
      return refusedInvalid.get();
    }

    long refusedOverWindow() {
      return refusedOverWindow.get();
    }

    long passthroughs() {
      return passthroughs.get();
    }

    /** Cache-read tokens computed from the requests' bytes (see {@link ProxyReplay}). */
    long byteCachedTokens() {
      return byteCachedTokens.get();
    }

    /** Requests per {@code x-compactor-action}, sorted by action. */
    Map<String, Long> actions() {
      Map<String, Long> out = new java.util.TreeMap<>();
      actions.forEach((k, v) -> out.put(k, v.get()));
      return out;
    }

    /** The figures as the replay's JSON document holds them. */
    ReplayJson.ProxyFigures figures() {
      List<String> refused;
      synchronized (refusals) {
        refused = List.copyOf(refusals);
      }
      return new ReplayJson.ProxyFigures(
          calls.get(),
          upstreamRequests.get(),
          refusedInvalid.get(),
          refusedOverWindow.get(),
          passthroughs.get(),
          byteCachedTokens.get(),
          actions(),
          refused);
    }
  }

  private ProxyReplay(long providerWindow, TokenCounter counter, Api api) {
    this.api = api;
    try {
      dir = Files.createTempDirectory("compactor-proxy-replay");
    } catch (IOException e) {
      throw new CompactorException("cannot create a temporary directory: " + e.getMessage(), e);
    }
    provider =
        FakeModelServer.builder()
            .contextWindow(providerWindow)
            .tokenCounter(text -> linewise(counter, lineTokens, text))
            .replyWith(this::answer)
            .start();
    ChatStore c = null;
    ProxyStore p = null;
    try {
      c = SqliteChatStore.open(dir.resolve("chats.db"));
      // after the chat store: on a fresh database its migrations run first (see ProxyStore)
      p = ProxyStore.openSqlite(dir.resolve("chats.db"));
      ServerSettings settings =
          ServerSettings.builder()
              .port(0)
              .upstream(new Upstream(api.id, provider.baseUrl(), null))
              .build();
      server =
          CompactorServer.start(
              settings,
              ChatTaskService.builder(c).build(),
              Tenants.of(c.keys()),
              new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8),
              new ServerMetrics(),
              p,
              Map.of());
    } catch (RuntimeException e) {
      if (p != null) {
        p.close();
      }
      if (c != null) {
        c.close();
      }
      provider.close();
      ImportTarget.deleteQuietly(dir);
      throw e;
    }
    chats = c;
    proxyStore = p;
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  }

  /**
   * Starts the fake provider and the proxy in front of it.
   *
   * @param providerWindow the fake provider's context window (tokens; 0 for none): a request whose
   *     text it counts above it is refused with the provider's context-overflow error
   * @param counter how the fake provider counts (the replay's counter)
   */
  static ProxyReplay start(long providerWindow, TokenCounter counter) {
    return start(providerWindow, counter, Api.OPENAI);
  }

  /** {@link #start(long, TokenCounter)} with the client speaking {@code api}. */
  static ProxyReplay start(long providerWindow, TokenCounter counter, Api api) {
    return new ProxyReplay(providerWindow, counter, java.util.Objects.requireNonNull(api, "api"));
  }

  /** The shape the client speaks. */
  Api api() {
    return api;
  }

  /** The figures of every upstream request so far. */
  Tally tally() {
    return tally;
  }

  /**
   * From now on keeps the body of every request the fake provider accepted, by conversation, in
   * order (for tests that check the figures against the bytes; memory grows with the replay).
   */
  void keepBodies() {
    keptBodies = new ConcurrentHashMap<>();
  }

  /** The bodies kept since {@link #keepBodies}, by conversation. */
  Map<String, List<String>> keptBodies() {
    Map<String, List<String>> k = keptBodies;
    if (k == null) {
      return Map.of();
    }
    Map<String, List<String>> out = new HashMap<>();
    k.forEach((id, list) -> out.put(id, List.copyOf(list)));
    return out;
  }

  /** The proxy's base URL (for tests). */
  String proxyUrl() {
    return server.baseUrl();
  }

  @Override
  public String name() {
    return api.strategy;
  }

  @Override
  public String description() {
    return "the compacting proxy over HTTP ("
        + (api == Api.OPENAI ? "Chat Completions" : "Anthropic Messages")
        + "), in front of a fake provider answering as recorded";
  }

  @Override
  public ReplaySession start(ReplaySetup setup) {
    if (setup.recorded().isEmpty()) {
      throw new IllegalArgumentException(
          "the replay through the proxy needs the recorded messages (ReplaySetup.recorded)");
    }
    Session s = new Session(setup);
    sessions.put(s.id, s);
    return s;
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      try {
        proxyStore.close();
        chats.close();
      } finally {
        provider.close();
        ImportTarget.deleteQuietly(dir);
      }
    }
  }

  // ------------------------------------------------------------------ the fake provider

  private Reply answer(RecordedRequest request) {
    String id = request.header(SESSION_HEADER).orElse(null);
    Session s = id == null ? null : sessions.get(id);
    if (s == null) {
      return Reply.raw(400, "{\"error\":{\"message\":\"unknown replay session\"}}");
    }
    return s.answer(request);
  }

  /** Attributes the requests the fake refused to their sessions and forgets what it recorded. */
  private void collectRefusals() {
    synchronized (provider) {
      for (RecordedRequest r : provider.requests()) {
        tally.upstreamRequests.incrementAndGet();
        if (!r.rejected()) {
          continue;
        }
        boolean window = "context window exceeded".equals(r.rejection());
        (window ? tally.refusedOverWindow : tally.refusedInvalid).incrementAndGet();
        if (tally.refusals.size() < 20) {
          tally.refusals.add(r.rejection());
        }
      }
      provider.reset();
    }
  }

  // ------------------------------------------------------------------ one conversation

  private final class Session implements ReplaySession {
    final String id = UUID.randomUUID().toString();
    final ReplaySetup setup;
    final TokenCounter counter;
    final String model;
    final List<Message> history = new ArrayList<>();

    /** Chat Completions: the client's message of each recorded one (null when not sent). */
    final List<JsonNode> items = new ArrayList<>();

    /** Anthropic: the client's turns (without markers), and the recorded messages of each. */
    final List<ObjectNode> turns = new ArrayList<>();

    final List<List<Integer>> turnMembers = new ArrayList<>();

    /** Anthropic: the recorded system messages, by index, sent as the top-level system. */
    final List<Integer> systemMembers = new ArrayList<>();

    /**
     * The indexes in {@link #history} of the recorded messages the client sent as each JSON text
     * (several when the same message was sent twice, e.g. a repeated user reply), in order. In the
     * Anthropic shape, by each message's text as decoded from the wire ({@link #wireKey}).
     */
    final Map<String, List<Integer>> byJson = new HashMap<>();

    /** Messages decoded from items the proxy made (stubs, checkpoints), by their JSON text. */
    final Map<String, Message> decoded = new HashMap<>();

    List<String> previousItems = List.of();
    List<Message> previousView = List.of();
    List<Message> view = List.of();
    volatile Message pending;
    final List<RecordedRequest> accepted = new ArrayList<>();

    /** Index in the recording of the last call's assistant message. */
    final int lastCall;

    Session(ReplaySetup setup) {
      this.setup = setup;
      int last = -1;
      for (int i = 0; i < setup.recorded().size(); i++) {
        if (RecordedConversation.isCall(setup.recorded().get(i))) {
          last = i;
        }
      }
      this.lastCall = last;
      this.counter = setup.counter();
      String m = setup.model();
      this.model = m.substring(m.lastIndexOf('/') + 1);
    }

    @Override
    public void append(Message recorded) {
      if (api == Api.ANTHROPIC) {
        recorded = onTheWire(recorded);
      }
      history.add(recorded);
      int index = history.size() - 1;
      if (api == Api.ANTHROPIC) {
        appendAnthropic(recorded, index);
        return;
      }
      if (recorded.uiOnly()) {
        items.add(null);
        return;
      }
      ObjectNode item = clientItem(recorded);
      items.add(item);
      if (item != null) {
        byJson.computeIfAbsent(Json.write(item), k -> new ArrayList<>(1)).add(index);
      }
    }

    /**
     * Adds a recorded message to the client's Anthropic request: a system message to the system
     * prompt, any other to the last turn when it is of the same side (that turn is written anew),
     * else as a new turn.
     */
    private void appendAnthropic(Message recorded, int index) {
      if (recorded.uiOnly()) {
        return;
      }
      if (recorded.role() == Role.SYSTEM) {
        if (!recorded.content().isEmpty()) {
          systemMembers.add(index);
          byJson
              .computeIfAbsent(wireKey(systemMessage(recorded.content())), k -> new ArrayList<>(1))
              .add(index);
        }
        return;
      }
      ObjectNode alone = anthropicTurn(List.of(recorded));
      if (alone == null) {
        return; // nothing of it is sent (an empty user message)
      }
      for (Message m : AnthropicMessages.decode(Json.array().add(alone)).messages()) {
        byJson.computeIfAbsent(wireKey(m), k -> new ArrayList<>(1)).add(index);
      }
      String side = alone.path("role").asText();
      int last = turns.size() - 1;
      if (last >= 0 && turns.get(last).path("role").asText().equals(side)) {
        List<Integer> members = turnMembers.get(last);
        members.add(index);
        List<Message> group = new ArrayList<>();
        members.forEach(i -> group.add(history.get(i)));
        turns.set(last, anthropicTurn(group));
      } else {
        turns.add(alone);
        turnMembers.add(new ArrayList<>(List.of(index)));
      }
    }

    @Override
    public void afterTurn() {
      // the proxy decides on each request; nothing runs between turns
    }

    @Override
    public List<Message> view() {
      int next = history.size();
      List<Message> recorded = setup.recorded();
      if (next >= recorded.size() || !RecordedConversation.isCall(recorded.get(next))) {
        throw new IllegalStateException(
            "the replay asked for a call where the recording has no assistant message (message "
                + next
                + ")");
      }
      pending = recorded.get(next);
      synchronized (accepted) {
        accepted.clear();
      }
      ObjectNode body = api == Api.ANTHROPIC ? anthropicBody() : chatBody();
      HttpResponse<String> response = post(Json.write(body));
      tally.calls.incrementAndGet();
      String action = response.headers().firstValue(ProxyRoutes.ACTION).orElse("?");
      tally.actions.computeIfAbsent(action, k -> new AtomicLong()).incrementAndGet();
      if (action.equals("passthrough")) {
        tally.passthroughs.incrementAndGet();
      }
      if (response.statusCode() != 200) {
        collectRefusals();
        throw new CompactorException(
            "the proxy answered HTTP "
                + response.statusCode()
                + " ("
                + action
                + ", "
                + response.headers().firstValue(ProxyRoutes.REASON).orElse("")
                + "): "
                + abbreviate(response.body()));
      }
      RecordedRequest received;
      synchronized (accepted) {
        if (accepted.isEmpty()) {
          throw new IllegalStateException("the fake provider received no request for this call");
        }
        received = accepted.get(accepted.size() - 1);
        tally.extraAccepted.addAndGet(accepted.size() - 1L);
      }
      collectRefusals();
      List<String> texts = new ArrayList<>();
      List<List<Message>> sentItems = new ArrayList<>();
      if (api == Api.ANTHROPIC) {
        received(received.json(), texts, sentItems);
      } else {
        int[] last = {-1};
        for (JsonNode item : received.json().path("messages")) {
          String text = Json.write(item);
          texts.add(text);
          sentItems.add(List.of(messageOf(text, item, last)));
        }
      }
      List<Message> sent = new ArrayList<>();
      sentItems.forEach(sent::addAll);
      long cached = 0;
      for (int i = 0; i < Math.min(texts.size(), previousItems.size()); i++) {
        if (!texts.get(i).equals(previousItems.get(i))) {
          break;
        }
        for (Message m : sentItems.get(i)) {
          cached += counter.countMessage(m);
        }
      }
      tally.byteCachedTokens.addAndGet(cached);
      if (isCompaction(action)) {
        long before = header(response, ProxyRoutes.TOKENS_BEFORE);
        long after = header(response, ProxyRoutes.TOKENS_AFTER);
        setup.events().compacted(action, before, after);
        if (action.equals("summarized")) {
          summaryCall(sent);
        }
      }
      previousItems = texts;
      previousView = List.copyOf(sent);
      view = previousView;
      if (next == lastCall) {
        sessions.remove(id); // no more calls: the fake provider will not ask for it again
      }
      return view;
    }

    /** The Chat Completions request of the whole history. */
    private ObjectNode chatBody() {
      ObjectNode body = Json.object();
      body.put("model", model);
      body.put("max_tokens", setup.maxOutput());
      ArrayNode messages = body.putArray("messages");
      for (JsonNode item : items) {
        if (item != null) {
          messages.add(item);
        }
      }
      return body;
    }

    /**
     * The Anthropic Messages request of the whole history, with Claude Code's {@code cache_control}
     * markers: on the system prompt's block and on the last block of each of the last {@value
     * #MARKED_TURNS} turns.
     */
    private ObjectNode anthropicBody() {
      ObjectNode body = Json.object();
      body.put("model", model);
      body.put("max_tokens", setup.maxOutput());
      if (!systemMembers.isEmpty()) {
        ArrayNode system = body.putArray("system");
        for (int i : systemMembers) {
          system.addObject().put("type", "text").put("text", history.get(i).content());
        }
        mark((ObjectNode) system.get(system.size() - 1));
      }
      ArrayNode messages = body.putArray("messages");
      if (turns.isEmpty() || !turns.get(0).path("role").asText().equals("user")) {
        ObjectNode lead = messages.addObject().put("role", "user");
        lead.putArray("content").addObject().put("type", "text").put("text", LEADING_USER_TEXT);
      }
      for (ObjectNode t : turns) {
        messages.add(t.deepCopy());
      }
      for (int i = Math.max(0, messages.size() - MARKED_TURNS); i < messages.size(); i++) {
        JsonNode content = messages.get(i).path("content");
        if (content.isArray() && !content.isEmpty()) {
          mark((ObjectNode) content.get(content.size() - 1));
        }
      }
      return body;
    }

    /**
     * Reads an Anthropic request the fake provider accepted: the system prompt and each turn as an
     * item, its JSON text without {@code cache_control} markers, and the messages it stands for.
     */
    private void received(JsonNode request, List<String> texts, List<List<Message>> sentItems) {
      JsonNode plain = withoutMarkers(request);
      int[] last = {-1};
      JsonNode system = plain.get("system");
      if (system != null && !system.isNull()) {
        texts.add(Json.write(system));
        ObjectNode only = Json.object();
        only.set("system", system);
        only.putArray("messages");
        sentItems.add(messagesOf(AnthropicMessages.decode(only).messages(), last));
      }
      for (JsonNode turn : plain.path("messages")) {
        List<Message> ms =
            messagesOf(AnthropicMessages.decode(Json.array().add(turn)).messages(), last);
        List<String> items = turnItems(turn);
        if (items.size() != ms.size()) {
          throw new IllegalStateException(
              "an Anthropic turn of " + items.size() + " items decoded as " + ms.size());
        }
        for (int i = 0; i < items.size(); i++) {
          texts.add(items.get(i));
          sentItems.add(List.of(ms.get(i)));
        }
      }
    }

    /**
     * The recorded messages that {@code wire} (decoded from a turn the proxy wrote or merged) says,
     * where it says one (of several alike, the first after the one matched last); else the decoded
     * message itself, one object per text.
     */
    private List<Message> messagesOf(List<Message> wire, int[] last) {
      List<Message> out = new ArrayList<>(wire.size());
      for (Message m : wire) {
        String key = wireKey(m);
        List<Integer> at = byJson.get(key);
        out.add(at == null ? decoded.computeIfAbsent(key, k -> m) : recorded(at, last));
      }
      return out;
    }

    /**
     * Of the recorded messages at positions {@code at} (the same text), the first after the one
     * matched last ({@code last[0]}, moved on to it), as a view keeps the order; else the first.
     */
    private Message recorded(List<Integer> at, int[] last) {
      int chosen = at.get(0);
      for (int i : at) {
        if (i > last[0]) {
          chosen = i;
          break;
        }
      }
      last[0] = Math.max(last[0], chosen);
      return history.get(chosen);
    }

    /**
     * Reports a summary call: its input the messages the compaction dropped (those of the previous
     * request and the client's new messages that the new view no longer has), its output the
     * messages the compaction made.
     */
    private void summaryCall(List<Message> sent) {
      Set<Message> now = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
      now.addAll(sent);
      Set<Message> before = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
      before.addAll(previousView);
      int lastSent = -1;
      for (int i = 0; i < history.size(); i++) {
        if (before.contains(history.get(i))) {
          lastSent = i;
        }
      }
      List<Message> effective = new ArrayList<>(previousView);
      effective.addAll(history.subList(lastSent + 1, history.size()));
      long input = 0;
      for (Message m : effective) {
        if (!now.contains(m) && !m.uiOnly()) {
          input += counter.countMessage(m);
        }
      }
      Set<Message> old = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
      old.addAll(effective);
      long output = 0;
      for (Message m : sent) {
        if (!old.contains(m)) {
          output += counter.countMessage(m);
        }
      }
      setup.events().summaryCall(input, output);
    }

    /**
     * The message an item of the request stands for: the client's recorded message when the item is
     * one the client sent (of several with the same text, the first after the one matched last, as
     * a view keeps the order), else the message the proxy made, decoded once.
     */
    private Message messageOf(String text, JsonNode item, int[] last) {
      List<Integer> at = byJson.get(text);
      if (at != null) {
        return recorded(at, last);
      }
      return decoded.computeIfAbsent(
          text, t -> ChatCompletionsMessages.decodeStrict(item, "the proxy's message"));
    }

    Reply answer(RecordedRequest request) {
      synchronized (accepted) {
        accepted.add(request);
      }
      Map<String, List<String>> keep = keptBodies;
      if (keep != null) {
        keep.computeIfAbsent(id, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
            .add(request.body());
      }
      Message reply = pending;
      long out = counter.countMessage(reply);
      long in = provider.estimatePromptTokens(request.json());
      ObjectNode body = Json.object();
      if (api == Api.ANTHROPIC) {
        body.put("id", "msg_replay_" + history.size());
        body.put("type", "message");
        body.put("role", "assistant");
        body.put("model", model);
        ObjectNode turn = anthropicTurn(List.of(reply));
        body.set("content", turn == null ? Json.array() : turn.get("content"));
        body.put("stop_reason", reply.hasToolCalls() ? "tool_use" : "end_turn");
        body.putNull("stop_sequence");
        body.putObject("usage").put("input_tokens", in).put("output_tokens", out);
        return Reply.raw(200, Json.write(body));
      }
      body.put("id", "chatcmpl-replay-" + history.size());
      body.put("object", "chat.completion");
      body.put("created", 0);
      body.put("model", model);
      ObjectNode choice = body.putArray("choices").addObject();
      choice.put("index", 0);
      choice.set("message", clientItem(reply));
      choice.put("finish_reason", reply.hasToolCalls() ? "tool_calls" : "stop");
      body.putObject("usage").put("prompt_tokens", in).put("completion_tokens", out);
      return Reply.raw(200, Json.write(body));
    }

    private HttpResponse<String> post(String body) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(server.baseUrl() + api.route))
              .timeout(Duration.ofMinutes(5))
              .header("Content-Type", "application/json")
              .header(ProxyRoutes.BUDGET, Long.toString(setup.budgetTokens()))
              .header(SESSION_HEADER, id);
      if (api == Api.ANTHROPIC) {
        request.header("x-api-key", "sk-ant-replay").header("anthropic-version", "2023-06-01");
      } else {
        request.header("Authorization", "Bearer sk-replay");
      }
      try {
        return http.send(
            request.POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw new UncheckedIOException("the proxy could not be reached: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompactorException("interrupted while calling the proxy", e);
      }
    }
  }

  /**
   * The Anthropic turn of {@code group} (consecutive recorded messages of one side), as the client
   * sends it, without markers: the codec's turn, with recorded reasoning that has no signature sent
   * as {@code thinking} blocks signed {@value #UNSIGNED} (so that the proxy counts the tokens the
   * replay does); null when nothing of it is sent.
   */
  static ObjectNode anthropicTurn(List<Message> group) {
    List<Message> signed = new ArrayList<>(group.size());
    for (Message m : group) {
      if (m.reasoning().stream().anyMatch(r -> r.signature() == null)) {
        List<ReasoningBlock> blocks = new ArrayList<>();
        for (ReasoningBlock r : m.reasoning()) {
          blocks.add(
              r.signature() == null && !r.type().equals("redacted_thinking")
                  ? new ReasoningBlock("thinking", r.text(), UNSIGNED)
                  : r);
        }
        m = m.toBuilder().reasoning(blocks).build();
      }
      signed.add(m);
    }
    try {
      return AnthropicMessages.reencodeTurn(signed, null);
    } catch (IllegalArgumentException e) {
      throw new CompactorException(
          "the replay cannot send message "
              + group.get(0).id()
              + " in the Anthropic shape: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * {@code m} as the Anthropic wire carries it: a tool call's arguments are a JSON object there
   * ({@code tool_use} input), so the provider gets them re-written, without the recording's
   * spacing; the replay counts that text. {@code m} itself when nothing changes.
   */
  static Message onTheWire(Message m) {
    if (!m.hasToolCalls()) {
      return m;
    }
    List<ToolCall> calls = new ArrayList<>(m.toolCalls().size());
    boolean changed = false;
    for (ToolCall c : m.toolCalls()) {
      JsonNode args = c.arguments().isBlank() ? Json.object() : Json.tryParse(c.arguments());
      String wire = args != null && args.isObject() ? Json.write(args) : c.arguments();
      changed |= !wire.equals(c.arguments());
      calls.add(new ToolCall(c.id(), c.name(), wire));
    }
    return changed ? m.toBuilder().toolCalls(calls).build() : m;
  }

  /** A system message as the proxy decodes Anthropic's top-level system text. */
  private static Message systemMessage(String text) {
    return Message.builder(Role.SYSTEM).id("system").content(text).build();
  }

  /**
   * What a message says on the Anthropic wire, as one text: role, tool call id, content and tool
   * calls (not its id or metadata, which the wire does not carry).
   */
  static String wireKey(Message m) {
    StringBuilder sb = new StringBuilder();
    sb.append(m.role()).append('\u0000').append(m.toolCallId()).append('\u0000');
    sb.append(m.content());
    for (var c : m.toolCalls()) {
      sb.append('\u0000').append(c.id()).append('\u0001').append(c.name()).append('\u0001');
      JsonNode args = Json.tryParse(c.arguments());
      sb.append(args == null ? c.arguments() : Json.write(args));
    }
    return sb.toString();
  }

  /**
   * The items of an Anthropic turn for the cache comparison, one per message it decodes to: each
   * {@code tool_result} block, then the turn's other blocks together (when there are any, or no
   * tool result), each as its role and JSON text. So a turn that grows (a user text after the tool
   * results) keeps its leading items, as the provider's cached prefix keeps its leading blocks.
   */
  static List<String> turnItems(JsonNode turn) {
    String role = turn.path("role").asText();
    List<String> items = new ArrayList<>();
    ArrayNode rest = Json.array();
    JsonNode content = turn.get("content");
    if (content != null && content.isArray()) {
      for (JsonNode b : content) {
        if (role.equals("user") && "tool_result".equals(b.path("type").asText())) {
          items.add(role + " " + Json.write(b));
        } else {
          rest.add(b);
        }
      }
    } else if (content != null) {
      rest.add(content);
    }
    if (!rest.isEmpty() || items.isEmpty()) {
      items.add(role + " " + Json.write(rest));
    }
    return items;
  }

  /** Puts Claude Code's {@code cache_control} marker on a block. */
  private static void mark(ObjectNode block) {
    block.putObject("cache_control").put("type", "ephemeral");
  }

  /** A copy of {@code node} without {@code cache_control} fields, at any depth. */
  static JsonNode withoutMarkers(JsonNode node) {
    if (node.isObject()) {
      ObjectNode copy = Json.object();
      node.fields()
          .forEachRemaining(
              e -> {
                if (!e.getKey().equals("cache_control")) {
                  copy.set(e.getKey(), withoutMarkers(e.getValue()));
                }
              });
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = Json.array();
      node.forEach(n -> copy.add(withoutMarkers(n)));
      return copy;
    }
    return node;
  }

  /**
   * The tokens of {@code text} counted line by line, so that the counter's cache serves the lines
   * every request repeats (counting a whole long prompt anew on each request would dominate the
   * replay); within a few tokens of counting it whole, since the tokenizer splits at line breaks.
   */
  static long linewise(TokenCounter counter, Map<String, Integer> cache, String text) {
    long n = 0;
    int from = 0;
    while (from < text.length()) {
      int nl = text.indexOf('\n', from);
      int to = nl < 0 ? text.length() : nl + 1;
      String line = text.substring(from, to);
      Integer c = cache.get(line);
      if (c == null) {
        c = counter.countText(line);
        if (cache.size() >= LINE_CACHE_ENTRIES) {
          cache.clear();
        }
        cache.put(line, c);
      }
      n += c;
      from = to;
    }
    return n;
  }

  /**
   * A recorded message as the agent's client sends it: the Chat Completions message, with the
   * reasoning of an assistant message as {@code reasoning_content} (as reasoning models of
   * OpenAI-compatible servers return it), so that the proxy counts the same tokens the replay does.
   */
  static ObjectNode clientItem(Message m) {
    ObjectNode item = ChatCompletionsMessages.encode(m);
    if (item != null && !m.reasoning().isEmpty()) {
      StringBuilder text = new StringBuilder();
      m.reasoning().forEach(b -> text.append(b.text()));
      if (text.length() > 0) {
        item.put("reasoning_content", text.toString());
      }
    }
    return item;
  }

  private static boolean isCompaction(String action) {
    return switch (action) {
      case "masked", "trimmed", "summarized", "recovered" -> true;
      default -> false;
    };
  }

  private static long header(HttpResponse<String> r, String name) {
    try {
      return Long.parseLong(r.headers().firstValue(name).orElse("-1"));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String abbreviate(String s) {
    String one = s.replaceAll("\\s+", " ");
    return one.length() > 300 ? one.substring(0, 300) + "…" : one;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ProxyReplay[%s]", server.baseUrl());
  }
}
