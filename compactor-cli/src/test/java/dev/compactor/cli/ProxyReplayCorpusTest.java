package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
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
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The replay through the proxy on a few mini-swe-agent trajectories of the shared corpus (skipped
 * when the corpus is absent; the whole corpus is for the command, see {@code docs/proxy.md}): every
 * call goes over HTTP to a real proxy in front of the fake provider, and the figures are those of
 * what the provider received, recomputed here from the request bodies it accepted.
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
    Map<String, List<String>> bodies;
    ProxyReplay.Tally tally;
    try (ProxyReplay proxy = ProxyReplay.start(ReplayOptions.SCORECARD_WINDOW, options.counter())) {
      proxy.keepBodies();
      report =
          new ReplayRunner(options)
              .run(
                  files,
                  List.of(ReplayStrategies.global().get("none"), proxy),
                  ProgressListener.NONE);
      bodies = proxy.keptBodies();
      tally = proxy.tally();
    }
    Metrics direct = report.totals().get("none");
    Metrics proxied = report.totals().get(ProxyReplay.NAME);

    // Every call went upstream once, and the provider refused none of them.
    assertThat(tally.upstreamRequests()).isEqualTo(proxied.calls());
    assertThat(tally.refused()).isZero();
    assertThat(tally.passthroughs()).isZero();
    assertThat(bodies).hasSize(FILES.size());
    assertThat(bodies.values().stream().mapToInt(List::size).sum())
        .isEqualTo((int) proxied.calls());
    assertThat(proxied.calls()).isEqualTo(direct.calls());
    assertThat(proxied.overWindowCalls()).isZero();
    assertThat(proxied.invalidViews()).isZero();
    assertThat(direct.overWindowCalls()).isPositive(); // sent direct, some calls do not fit
    assertThat(proxied.compactions()).isPositive();
    assertThat(proxied.inputTokens()).isLessThan(direct.inputTokens());
    assertThat(proxied.peakTokens()).isLessThanOrEqualTo(maxBudget(report));
    // The same calls need the same facts; the proxy's views keep nearly all of them.
    assertThat(proxied.neededFacts()).isEqualTo(direct.neededFacts());
    assertThat(proxied.recall()).isGreaterThan(0.99);

    // The figures again, by hand from the bytes the provider received: each request's input, and
    // its leading messages byte-identical with the previous request's as cache reads.
    // One model (one price) for all three trajectories.
    assertThat(report.files().stream().map(FileResult::model).distinct()).hasSize(1);
    Price price = Price.of(options.prices(), report.files().get(0).model());
    long input = 0;
    long cached = 0;
    double openAi = 0;
    double anthropic = 0;
    long compactedRequests = 0;
    for (List<String> requests : bodies.values()) {
      List<String> previous = List.of();
      for (String body : requests) {
        JsonNode messages = Json.tryParse(body).path("messages");
        List<String> items = new ArrayList<>();
        List<Message> decoded = new ArrayList<>();
        for (JsonNode item : messages) {
          items.add(Json.write(item));
          decoded.add(ChatCompletionsMessages.decodeStrict(item, "request"));
        }
        assertThat(new ViewValidator().isValid(decoded)).isTrue();
        long in = counter.countMessages(decoded);
        long c = 0;
        int same = 0;
        while (same < Math.min(items.size(), previous.size())
            && items.get(same).equals(previous.get(same))) {
          c += counter.countMessage(decoded.get(same));
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
    assertThat(compactedRequests).isPositive();
    assertThat(input).isEqualTo(proxied.inputTokens());
    assertThat(cached).isEqualTo(proxied.cachedTokens()).isEqualTo(tally.byteCachedTokens());
    assertThat(cached).isLessThan(input);
    assertThat(openAi).isCloseTo(proxied.promptCostOpenAi(), within(1e-9));
    assertThat(anthropic).isCloseTo(proxied.promptCostAnthropic(), within(1e-9));
    // Anthropic's write premium makes every uncached token dearer than OpenAI's.
    assertThat(anthropic).isGreaterThan(openAi);
  }

  private static long maxBudget(ReplayReport report) {
    return report.files().stream().mapToLong(FileResult::budget).max().orElseThrow();
  }
}
