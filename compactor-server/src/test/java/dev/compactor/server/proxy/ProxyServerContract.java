package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.server.Tenants;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The setup of the proxy contracts that run on each store ({@link ProxyContract}, {@link
 * ResponsesProxyContract}): a real server with the proxy in local mode on a fresh store ({@link
 * #openStore}), against {@link #fakeModel()}; and the checks both wire formats share.
 */
abstract class ProxyServerContract {
  @TempDir Path dir;

  ProxyFixture f;

  /** A fresh, empty proxy store. */
  abstract ProxyStore openStore(Path dir);

  @BeforeEach
  void start() {
    f = new ProxyFixture(fakeModel(), openStore(dir), dir, Tenants.localMode());
  }

  /** A fake provider answering "answer to " and the last user text, with a usage of 50 + 5. */
  static FakeModelServer fakeModel() {
    return FakeModelServer.builder()
        .replyWith(r -> Reply.text("answer to " + r.lastUserText()).usage(50, 5))
        .start();
  }

  @AfterEach
  void stop() {
    f.close();
  }

  /** The {@code x-compactor-conversation} of the tool loop's answers ({@link #heard}). */
  final Set<String> conversations = new LinkedHashSet<>();

  /**
   * The {@code x-compactor-action} of each of the tool loop's answers, in order ({@link #heard}).
   */
  final List<String> actions = new ArrayList<>();

  /** Notes the proxy's conversation and action on one answer of a tool loop. */
  void heard(ProxyFixture.Answer a) {
    conversations.add(a.header(ProxyRoutes.CONVERSATION));
    actions.add(a.header(ProxyRoutes.ACTION));
  }

  /**
   * The tool loop at a budget of 6,000 compacted (between 1 and 8 times, not on every round) and
   * kept each request within the provider's window and below 9,000 tokens, its cached prefix of the
   * conversation array {@code items} byte-identical from one request to the next.
   */
  void assertCompactedWithinTheBudget(List<RecordedRequest> sent, String items) {
    assertThat(f.model.rejections()).isEmpty();
    long maxPrompt =
        sent.stream().mapToLong(r -> f.model.estimatePromptTokens(r.json())).max().orElseThrow();
    assertThat(maxPrompt).isLessThan(9000);
    int compactions = PrefixChecks.assertCachePreserving(sent, actions, items);
    assertThat(compactions).isBetween(1, 8);
    assertThat(actions).contains("none").anyMatch(x -> !x.equals("none"));
  }

  /**
   * Posts {@code body} to {@code path} as a stream ({@code "stream": true}), the provider answering
   * with the raw {@code events}: the proxy relayed them unchanged, as an event stream. Returns the
   * proxy's conversation.
   */
  String assertStreamRelayedUnchanged(String path, ObjectNode body, List<String> events) {
    f.model.enqueue(Reply.rawStream(events));
    body.put("stream", true);
    ProxyFixture.Answer a = f.post(path, body.toString());
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.header("content-type")).startsWith("text/event-stream");
    assertThat(a.body()).isEqualTo(String.join("\n\n", events) + "\n\n");
    return a.header(ProxyRoutes.CONVERSATION);
  }

  /** The body of the last entry of the conversation's master log. */
  String lastLogged(String conversation) {
    List<ProxyStore.LogEntry> log = f.proxyStore.log(conversation);
    return log.get(log.size() - 1).body();
  }

  /**
   * Posts to {@code path} {@code body} with 12 rounds of a short assistant step and a long user
   * detail appended to its array {@code items}: too long for the provider's window of 3,000 tokens,
   * within the budget. The proxy recovered the provider's overflow ({@link
   * #assertRecoveredByShrinkingRetries}) and answered 200, {@code x-compactor-action: recovered}.
   */
  ProxyFixture.Answer assertOverflowRecovered(String path, ObjectNode body, String items) {
    f.model.contextWindow(3000);
    for (int i = 0; i < 12; i++) {
      body.withArray(items).addObject().put("role", "assistant").put("content", "step " + i);
      body.withArray(items)
          .addObject()
          .put("role", "user")
          .put("content", ("detail " + i + " ").repeat(150));
    }
    ProxyFixture.Answer a = f.post(path, body.toString(), "X-Compactor-Budget", "100000");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.header("x-compactor-action")).isEqualTo("recovered");
    assertRecoveredByShrinkingRetries(f.model.requests());
    return a;
  }

  /**
   * The provider's context overflow was recovered by shrinking retries: it rejected the first
   * request and took the last, each retry smaller than the one before, and the newest user message
   * (here "detail 11 …") kept.
   */
  static void assertRecoveredByShrinkingRetries(List<RecordedRequest> sent) {
    assertThat(sent.size()).isBetween(2, 9);
    assertThat(sent.get(0).rejected()).isTrue();
    assertThat(sent.get(sent.size() - 1).rejected()).isFalse();
    for (int i = 1; i < sent.size(); i++) {
      assertThat(sent.get(i).body().length()).isLessThan(sent.get(i - 1).body().length());
    }
    assertThat(sent.get(sent.size() - 1).lastUserText()).startsWith("detail 11");
  }
}
