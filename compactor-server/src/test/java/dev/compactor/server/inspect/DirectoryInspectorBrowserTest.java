package dev.compactor.server.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.ManualCompactor;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.log.store.StoredArchive;
import dev.compactor.log.store.StoredConversation;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The inspector of a conversation directory in a real browser: a conversation compacted by the real
 * {@code trim} strategy, read back read-only, served on a real port.
 */
class DirectoryInspectorBrowserTest {
  static final String MODEL = "openai/gpt-4o";
  static final long BUDGET = 6_000;
  static final long WINDOW = 128_000;
  static final String INJECTED = "<script>window.__injected = 1</script>";

  @TempDir static Path tmp;
  static Path dir;
  static StoredConversation conversation;
  static InspectorServer server;
  static Browser browser;

  @BeforeAll
  static void setUp() {
    dir = tmp.resolve("demo-conversation");
    TokenCounter counter = TokenCounters.forModel(MODEL);
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(Message.system("You are a coding agent. Fix the failing test."));
      c.append(Message.user("The test FooTest fails with a KeyError. " + INJECTED));
      for (int turn = 0; turn < 8; turn++) {
        String id = "call_" + turn;
        c.append(
            Message.assistant(
                "Looking at part " + turn + ".",
                List.of(new ToolCall(id, "bash", "{\"cmd\":\"cat src/part" + turn + ".py\"}"))));
        StringBuilder out = new StringBuilder();
        for (int line = 0; line < 120; line++) {
          out.append("part")
              .append(turn)
              .append(" line ")
              .append(line)
              .append(": value = lookup(key_")
              .append(line)
              .append(turn == 7 ? ") # KeyError when missing\n" : ") # ok\n");
        }
        c.append(Message.toolResult(id, out.toString()));
      }
      c.append(Message.assistant("The KeyError comes from lookup; fixing it now."));
      CompressionConfig base =
          CompressionConfig.builder().counter(counter).archive(new StoredArchive(c)).build();
      PolicyContext ctx = PolicyContext.of(MODEL, BUDGET, base);
      ManualCompactor manual =
          new ManualCompactor(ProviderRegistry.global()::get, Clock.systemUTC(), c.journal());
      CompactionOutcome o = manual.compact(c, "trim", null, ctx);
      assertThat(o).isInstanceOf(CompactionOutcome.Compacted.class);
      c.append(Message.user("Good. Now run the tests."));
      c.append(Message.assistant("All tests pass."));
    }
    conversation = StoredConversation.openReadOnly(dir);
    server =
        InspectorServer.start(
            "127.0.0.1",
            0,
            InspectorSource.ofDirectory(conversation, MODEL, BUDGET, WINDOW, counter));
    browser = Browser.start(tmp.resolve("profile"));
  }

  @AfterAll
  static void tearDown() throws Exception {
    Browser.closeAll(browser, server, conversation);
  }

  private static WebDriverWait waitUp() {
    return new WebDriverWait(browser.driver, Duration.ofSeconds(20));
  }

  @Test
  void list_showsTheConversation() throws Exception {
    browser.driver.get(server.url());
    List<WebElement> rows =
        browser.driver.findElements(By.cssSelector("#conversations tr.conversation"));
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).getText()).contains("demo-conversation").contains(MODEL);
    browser.screenshot("inspector-list");
  }

  @Test
  void conversation_showsEachEntryOfTheViewWithItsKind() throws Exception {
    browser.driver.get(server.conversationUrl());
    Map<EntryKind, Integer> expected = new EnumMap<>(EntryKind.class);
    for (EntryKind k : EntryKind.values()) {
      expected.put(k, 0);
    }
    // counted here from the marks the trim strategy leaves, independently of the page's code
    for (ViewEntry e : conversation.activeView().entries()) {
      EntryKind k;
      if (e instanceof ViewEntry.Ref) {
        k = EntryKind.VERBATIM;
      } else {
        Object mark = ((ViewEntry.Synthesized) e).message().metadata().extra().get("compacted");
        k =
            switch (String.valueOf(mark)) {
              case "stub" -> EntryKind.STUBBED;
              case "truncated" -> EntryKind.TRUNCATED;
              case "extractive" -> EntryKind.COMPRESSED;
              default -> EntryKind.SYNTHESIZED;
            };
      }
      expected.merge(k, 1, Integer::sum);
    }
    assertThat(expected.get(EntryKind.STUBBED)).isPositive();
    assertThat(expected.get(EntryKind.VERBATIM)).isPositive();
    for (EntryKind k : EntryKind.values()) {
      assertThat(browser.driver.findElements(By.cssSelector("tr.entry.kind-" + k.label())))
          .as("entries of kind %s", k.label())
          .hasSize(expected.get(k));
    }
    assertThat(browser.driver.findElements(By.cssSelector("tr.entry")))
        .hasSize(conversation.activeView().size());
    assertThat(browser.driver.findElements(By.cssSelector("#master tr.message")))
        .hasSize(conversation.master().size());
    assertThat(browser.driver.findElements(By.cssSelector("#journal tr.compaction")))
        .hasSize(conversation.journal().entries().size());
  }

  @Test
  void recover_showsTheOriginalTextOfAStub() throws Exception {
    browser.driver.get(server.conversationUrl());
    WebElement row = browser.driver.findElement(By.cssSelector("tr.entry.kind-stubbed"));
    String stubId = row.getDomAttribute("data-id");
    List<Message> originals = conversation.recover(new MessageId(stubId));
    assertThat(originals).hasSize(1);
    assertThat(originals.get(0).role()).isEqualTo(Role.TOOL);
    assertThat(row.getText()).doesNotContain(originals.get(0).content().substring(0, 200));

    row.findElement(By.cssSelector("a.recover")).click();
    WebElement text =
        waitUp()
            .until(
                ExpectedConditions.presenceOfNestedElementLocatedBy(
                    row, By.cssSelector(".recovered pre.original-text")));
    // textContent: the whole text exactly, also the part scrolled out of view
    assertThat(text.getDomProperty("textContent")).isEqualTo(originals.get(0).content());
    browser.screenshot("inspector-recover");
  }

  @Test
  void chart_drawsOneBarPerCallWithBudgetWindowAndCompaction() throws Exception {
    browser.driver.get(server.conversationUrl());
    long assistants =
        conversation.master().messages().stream().filter(m -> m.role() == Role.ASSISTANT).count();
    WebElement svg = browser.driver.findElement(By.id("context-chart"));
    assertThat(svg.isDisplayed()).isTrue();
    assertThat(svg.findElements(By.cssSelector("rect.bar"))).hasSize((int) assistants);
    assertThat(svg.findElements(By.cssSelector("line.budget"))).hasSize(1);
    assertThat(svg.findElements(By.cssSelector("line.window"))).hasSize(1);
    assertThat(svg.findElements(By.cssSelector("line.compaction")))
        .hasSize(conversation.journal().entries().size());
    // drawn: the bars have a height on screen, the last (after the compaction) lower than the one
    // before it
    List<WebElement> bars = svg.findElements(By.cssSelector("rect.bar"));
    int before = bars.get(bars.size() - 2).getRect().getHeight();
    int after = bars.get(bars.size() - 1).getRect().getHeight();
    assertThat(before).isPositive();
    assertThat(after).isPositive().isLessThan(before);
    browser.screenshot("inspector-conversation");
  }

  @Test
  void conversationText_isShownAsTextNeverRun() {
    browser.driver.get(server.conversationUrl());
    Object injected = browser.driver.executeScript("return window.__injected === undefined;");
    assertThat(injected).isEqualTo(Boolean.TRUE);
    assertThat(browser.driver.findElement(By.id("master")).getText()).contains(INJECTED);
  }
}
