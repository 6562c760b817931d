package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.server.Tenants;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The setup shared by the tests that point a provider's official SDK at the proxy: a fake provider
 * (12,000-token window) that asks for a {@code bash} call in each of the first {@link #ROUNDS} - 1
 * rounds ({@link #toolCall}) and then answers {@link #FINAL_TEXT}, behind a real proxy on SQLite in
 * local mode. Subclasses build their SDK client on {@link #f} in their own {@code @BeforeEach}
 * (which runs after this class's) and close it in their own {@code @AfterEach} (which runs before).
 */
abstract class SdkToolLoopTest {
  static final int ROUNDS = 30;
  static final String FINAL_TEXT = "All tests pass now.";

  @TempDir Path dir;
  ProxyFixture f;
  final AtomicInteger calls = new AtomicInteger();

  /** The provider's reply in round {@code n} (0-based, before the last round). */
  abstract Reply toolCall(int n);

  @BeforeEach
  void startProxy() {
    FakeModelServer model =
        FakeModelServer.builder()
            .contextWindow(12_000)
            .replyWith(
                r -> {
                  int n = calls.getAndIncrement();
                  return n < ROUNDS - 1 ? toolCall(n) : Reply.text(FINAL_TEXT);
                })
            .start();
    f =
        new ProxyFixture(
            model, ProxyStore.openSqlite(dir.resolve("proxy.db")), dir, Tenants.localMode());
  }

  @AfterEach
  void stopProxy() {
    f.close();
  }

  /** The arguments of the {@code bash} call of round {@code n}: reading one more source file. */
  static String readFile(int n) {
    return "{\"cmd\":\"cat src/file" + n + ".java\"}";
  }

  /** The tool output the client sends back in {@code round}: 40 lines of code. */
  static String output(int round) {
    return ("line " + round + ": public void method" + round + "() { return compute(x, y); }\n")
        .repeat(40);
  }

  /**
   * Every request the provider saw was valid (the provider's own rules) and fit its window, one per
   * round; they are returned for the API's own checks.
   */
  List<RecordedRequest> assertEveryRoundReachedTheProvider() {
    List<RecordedRequest> sent = f.model.requests();
    assertThat(f.model.rejections()).isEmpty();
    assertThat(sent).hasSize(ROUNDS);
    return sent;
  }

  /**
   * The loop compacted at least twice, but in fewer than half the rounds: the default policy's cost
   * planner masks a few outputs at a time once that pays back the cache it invalidates (about every
   * third round here), never on every round.
   */
  static void assertCompactedSeveralTimes(int compactions) {
    assertThat(compactions).isGreaterThanOrEqualTo(2).isLessThan(ROUNDS / 2);
  }

  /** One proxy conversation held the whole loop, with a reply logged for each round. */
  void assertOneConversationHeldEveryReply(Set<String> conversations) {
    assertThat(conversations).hasSize(1);
    assertThat(f.proxyStore.log(conversations.iterator().next()))
        .filteredOn(e -> e.kind().equals("reply"))
        .hasSize(ROUNDS);
  }
}
