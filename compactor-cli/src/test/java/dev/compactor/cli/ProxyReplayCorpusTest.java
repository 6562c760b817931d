package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.replay.FileResult;
import dev.compactor.replay.Metrics;
import dev.compactor.replay.ProgressListener;
import dev.compactor.replay.ReplayOptions;
import dev.compactor.replay.ReplayReport;
import dev.compactor.replay.ReplayRunner;
import dev.compactor.replay.ReplayStrategies;
import dev.compactor.replay.cost.CacheModel;
import dev.compactor.replay.cost.Price;
import dev.compactor.testkit.corpus.SharedCorpus;
import dev.compactor.wire.anthropic.AnthropicMessages;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The replay through the proxy on a few mini-swe-agent trajectories of the shared corpus (skipped
 * when the corpus is absent; the whole corpus is for the command, see {@code docs/proxy.md}): every
 * call goes over HTTP to a real proxy in front of the fake provider, in the Chat Completions and in
 * the Anthropic Messages shape (with Claude Code's cache_control markers), and the figures are
 * those of what the provider received, recomputed here from the request bodies it accepted.
 */
class ProxyReplayCorpusTest {
  /** Trajectories of one model, long enough that the proxy compacts at window 32,768. */
  private static final List<String> FILES =
      List.of(
          "deepseek_chat_dev__pydicom__pydicom-1413.traj.json.gz",
          "deepseek_chat_dev__sqlfluff__sqlfluff-1625.traj.json.gz",
          "deepseek_chat_dev__pydicom__pydicom-1139.traj.json.gz");

  @Test
  void throughProxy_miniSweAgent_noRefusedRequest_andPricesFromWhatTheProviderReceived() {
    Path dir = SharedCorpus.require("the replay through the proxy").resolve("mini-swe-agent");
    List<Path> files = new ArrayList<>();
    for (String f : FILES) {
      Path p = dir.resolve(f);
      SharedCorpus.assumePresent(Files.isRegularFile(p), p.toString());
      files.add(p);
    }
    ReplayOptions options = ReplayOptions.scorecard().withThreads(2);
    TokenCounter counter = options.counter();
    ReplayReport report;
    Map<ProxyReplay.Api, Map<String, List<String>>> bodies = new EnumMap<>(ProxyReplay.Api.class);
    Map<ProxyReplay.Api, ProxyReplay.Tally> tallies = new EnumMap<>(ProxyReplay.Api.class);
    // both shapes in one run, next to the same calls sent direct
    try (ProxyReplay chat =
            ProxyReplay.start(ReplayOptions.SCORECARD_WINDOW, counter, ProxyReplay.Api.OPENAI);
        ProxyReplay anthropic =
            ProxyReplay.start(ReplayOptions.SCORECARD_WINDOW, counter, ProxyReplay.Api.ANTHROPIC)) {
      chat.keepBodies();
      anthropic.keepBodies();
      report =
          new ReplayRunner(options)
              .run(
                  files,
                  List.of(ReplayStrategies.global().get("none"), chat, anthropic),
                  ProgressListener.NONE);
      for (ProxyReplay p : List.of(chat, anthropic)) {
        bodies.put(p.api(), p.keptBodies());
        tallies.put(p.api(), p.tally());
      }
    }
    Metrics direct = report.totals().get("none");
    assertThat(direct.overWindowCalls()).isPositive(); // sent direct, some calls do not fit
    // One model (one price) for all three trajectories.
    assertThat(report.files().stream().map(FileResult::model).distinct()).hasSize(1);
    Price price = Price.of(options.prices(), report.files().get(0).model());
    for (ProxyReplay.Api api : ProxyReplay.Api.values()) {
      checkShape(api, report, bodies.get(api), tallies.get(api), counter, price, direct);
    }
  }

  /** The figures of one shape's proxy, and again by hand from the bytes the provider received. */
  private static void checkShape(
      ProxyReplay.Api api,
      ReplayReport report,
      Map<String, List<String>> bodies,
      ProxyReplay.Tally tally,
      TokenCounter counter,
      Price price,
      Metrics direct) {
    Metrics proxied = report.totals().get(api.strategy);
    String shape = api.name();

    // Every call went upstream once, and the provider refused none of them.
    assertThat(tally.upstreamRequests()).as(shape).isEqualTo(proxied.calls());
    assertThat(tally.refused()).as(shape).isZero();
    assertThat(tally.passthroughs()).as(shape).isZero();
    assertThat(bodies).as(shape).hasSize(FILES.size());
    assertThat(bodies.values().stream().mapToInt(List::size).sum())
        .isEqualTo((int) proxied.calls());
    assertThat(proxied.calls()).isEqualTo(direct.calls());
    assertThat(proxied.overWindowCalls()).as(shape).isZero();
    assertThat(proxied.invalidViews()).as(shape).isZero();
    assertThat(proxied.compactions()).as(shape).isPositive();
    assertThat(proxied.inputTokens()).as(shape).isLessThan(direct.inputTokens());
    assertThat(proxied.peakTokens()).as(shape).isLessThanOrEqualTo(maxBudget(report));
    // The same calls need the same facts; the proxy's views keep nearly all of them.
    assertThat(proxied.neededFacts()).isEqualTo(direct.neededFacts());
    assertThat(proxied.recall()).as(shape).isGreaterThan(0.99);

    // The figures again, by hand from the bytes the provider received: each request's input, and
    // its leading items byte-identical with the previous request's as cache reads (Anthropic:
    // the system prompt and each turn, without their cache_control markers).
    long input = 0;
    long cached = 0;
    double openAi = 0;
    double anthropic = 0;
    long compactedRequests = 0;
    for (List<String> requests : bodies.values()) {
      List<String> previous = List.of();
      for (String body : requests) {
        JsonNode request = Json.tryParse(body);
        List<String> items = new ArrayList<>();
        List<List<Message>> decoded = new ArrayList<>();
        if (api == ProxyReplay.Api.OPENAI) {
          for (JsonNode item : request.path("messages")) {
            items.add(Json.write(item));
            decoded.add(List.of(ChatCompletionsMessages.decodeStrict(item, "request")));
          }
        } else {
          assertThat(cacheControls(request)).isBetween(2, 4);
          assertThat(request.at("/system/0/cache_control/type").asText()).isEqualTo("ephemeral");
          JsonNode plain = ProxyReplay.withoutMarkers(request);
          ObjectNode system = Json.object();
          system.set("system", plain.get("system"));
          system.putArray("messages");
          items.add(Json.write(plain.get("system")));
          decoded.add(AnthropicMessages.decode(system).messages());
          for (JsonNode turn : plain.path("messages")) {
            // one item per message: each tool result, then the turn's other blocks
            List<Message> ms = AnthropicMessages.decode(Json.array().add(turn)).messages();
            List<JsonNode> results = new ArrayList<>();
            ArrayNode rest = Json.array();
            for (JsonNode b : turn.path("content")) {
              if ("tool_result".equals(b.path("type").asText())) {
                results.add(b);
              } else {
                rest.add(b);
              }
            }
            boolean restItem = !rest.isEmpty() || results.isEmpty();
            assertThat(ms).hasSize(results.size() + (restItem ? 1 : 0));
            for (int i = 0; i < results.size(); i++) {
              items.add("user " + Json.write(results.get(i)));
              decoded.add(List.of(ms.get(i)));
            }
            if (restItem) {
              items.add(turn.path("role").asText() + " " + Json.write(rest));
              decoded.add(List.of(ms.get(ms.size() - 1)));
            }
          }
        }
        List<Message> all = new ArrayList<>();
        decoded.forEach(all::addAll);
        assertThat(new ViewValidator().isValid(all)).isTrue();
        long in = counter.countMessages(all);
        long c = 0;
        int same = 0;
        while (same < Math.min(items.size(), previous.size())
            && items.get(same).equals(previous.get(same))) {
          for (Message m : decoded.get(same)) {
            c += counter.countMessage(m);
          }
          same++;
        }
        if (!previous.isEmpty() && same < previous.size()) {
          compactedRequests++; // the previous request is not a prefix of this one
        }
        assertThat(in).isLessThanOrEqualTo(ReplayOptions.SCORECARD_WINDOW - 4_096);
        input += in;
        cached += c;
        openAi += CacheModel.OPENAI.inputCost(price, in, c);
        anthropic += CacheModel.ANTHROPIC.inputCost(price, in, c);
        previous = items;
      }
    }
    assertThat(compactedRequests).as(shape).isPositive();
    assertThat(input).as(shape).isEqualTo(proxied.inputTokens());
    assertThat(cached)
        .as(shape)
        .isEqualTo(proxied.cachedTokens())
        .isEqualTo(tally.byteCachedTokens());
    assertThat(cached).isLessThan(input);
    assertThat(openAi).isCloseTo(proxied.promptCostOpenAi(), within(1e-9));
    assertThat(anthropic).isCloseTo(proxied.promptCostAnthropic(), within(1e-9));
    // Anthropic's write premium makes every uncached token dearer than OpenAI's.
    assertThat(anthropic).isGreaterThan(openAi);
  }

  /** Objects of a request carrying a {@code cache_control} marker, as the provider counts them. */
  private static int cacheControls(JsonNode node) {
    int n = node.isObject() && node.hasNonNull("cache_control") ? 1 : 0;
    for (JsonNode child : node) {
      n += cacheControls(child);
    }
    return n;
  }

  private static long maxBudget(ReplayReport report) {
    return report.files().stream().mapToLong(FileResult::budget).max().orElseThrow();
  }
}
