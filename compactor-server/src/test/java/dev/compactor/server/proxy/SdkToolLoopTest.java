package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The setup shared by the tests that point a provider's official SDK at the proxy: a fake provider
 * (12,000-token window) that asks for a {@code bash} call in each of the first {@link #ROUNDS} - 1
 * rounds ({@link #toolCall}) and then answers {@link #FINAL_TEXT}, behind a real proxy on SQLite in
 * local mode ({@link LocalProxyTest}). Subclasses build their SDK client on {@link #f} in their own
 * {@code @BeforeEach} and close it in their own {@code @AfterEach}.
 */
abstract class SdkToolLoopTest extends LocalProxyTest {
  static final int ROUNDS = 30;
  static final String FINAL_TEXT = "All tests pass now.";

  /** The {@code x-compactor-action} of each round's answer, in order ({@link #heard}). */
  final List<String> actions = new ArrayList<>();

  /** The {@code x-compactor-conversation} of the rounds' answers ({@link #heard}). */
  final Set<String> conversations = new LinkedHashSet<>();

  /** The provider's reply in round {@code n} (0-based, before the last round). */
  abstract Reply toolCall(int n);

  @Override
  FakeModelServer.Builder provider() {
    return FakeModelServer.builder().contextWindow(12_000);
  }

  @Override
  Reply reply(int n) {
    return n < ROUNDS - 1 ? toolCall(n) : Reply.text(FINAL_TEXT);
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
   * Notes the proxy's headers on one round's answer.
   *
   * @param headers the values of a response header by its name, as the SDK gives them
   */
  void heard(Function<String, List<String>> headers) {
    actions.add(headers.apply("x-compactor-action").get(0));
    conversations.add(headers.apply("x-compactor-conversation").get(0));
  }

  /**
   * The checks of every loop: each round reached the provider ({@link
   * #assertEveryRoundReachedTheProvider}), the loop compacted several times keeping the provider's
   * cached prefix of the conversation array {@code items}, the client's own key reached the
   * provider as the header {@code authorization} (local mode), and one conversation held the loop.
   *
   * @return how many compactions there were
   */
  int assertLoopProxied(String items, String authorization) {
    List<RecordedRequest> sent = assertEveryRoundReachedTheProvider();
    int compactions = PrefixChecks.assertCachePreserving(sent, actions, items);
    assertCompactedSeveralTimes(compactions);
    assertThat(sent.get(0).header("authorization")).hasValue(authorization);
    assertOneConversationHeldEveryReply(conversations);
    return compactions;
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
