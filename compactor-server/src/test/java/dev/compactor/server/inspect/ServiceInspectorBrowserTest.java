package dev.compactor.server.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.SqliteChatStore;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.RetryPolicy;
import dev.compactor.server.CompactorServer;
import dev.compactor.server.ServerMetrics;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.TestTenants;
import dev.compactor.server.Upstream;
import dev.compactor.server.UpstreamModels;
import dev.compactor.server.proxy.ProxyStore;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.Reply;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The inspector of {@code compactor serve} in a real browser, in tenant mode: a chat task with a
 * summary and archived messages, and a proxy conversation the proxy compacted, both made through
 * the server's own HTTP API against the fake provider; another tenant's chat beside them.
 */
class ServiceInspectorBrowserTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String ACME_KEY = "cpk_acme_inspector_test_key";
  static final String OTHER_KEY = "cpk_other_inspector_test_key";
  static final String ENV = "TEST_INSPECTOR_UPSTREAM_KEY";
  static final String INJECTED = "<script>window.__injected = 1</script><b>bold</b>";

  @TempDir static Path tmp;
  static FakeModelServer model;
  static ChatStore chats;
  static ProxyStore proxy;
  static CompactorServer server;
  static Browser browser;
  static String conversationId;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void setUp() throws Exception {
    model =
        FakeModelServer.builder()
            .replyWith(
                r ->
                    r.body().contains("Summarize this conversation excerpt")
                        ? Reply.text("SUMMARY of the earlier turns").usage(300, 40)
                        : Reply.text("echo: " + r.lastUserText()).usage(100, 5))
            .start();
    chats = SqliteChatStore.open(tmp.resolve("chats.db"));
    proxy = ProxyStore.openSqlite(tmp.resolve("proxy.db"));
    ServerSettings settings =
        ServerSettings.builder()
            .port(0)
            .upstream(new Upstream("openai", model.baseUrl(), ENV))
            .build();
    ChatTaskService service =
        ChatTaskService.builder(chats)
            .models(
                new UpstreamModels(
                    settings.upstreams(),
                    ChatModelOptions.builder().retryPolicy(RetryPolicy.none()).build(),
                    Map.of(ENV, "sk-upstream")))
            .build();
    Map<String, String> keys = Map.of(ACME_KEY, "acme", OTHER_KEY, "other");
    Tenants tenants = TestTenants.keys(keys);
    server =
        CompactorServer.start(
            settings,
            service,
            tenants,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new ServerMetrics(),
            proxy,
            Map.of(ENV, "sk-upstream"));

    // a chat task of acme: 8 calls, one with markup in it, then a summary on demand
    for (int i = 0; i < 8; i++) {
      String text = i == 3 ? INJECTED : "message " + i;
      ObjectNode body = JSON.createObjectNode().put("model", "openai/gpt-4o-mini");
      body.putArray("messages").addObject().put("role", "user").put("content", text);
      if (i == 0) {
        body.putObject("compaction")
            .putObject("summary")
            .putObject("activation")
            .put("message_count", 60);
      }
      assertThat(post("/v1/chats/sum/calls", body.toString(), ACME_KEY).statusCode())
          .isEqualTo(200);
    }
    HttpResponse<String> s = post("/v1/chats/sum/summarize", "", ACME_KEY);
    assertThat(s.statusCode()).as(s.body()).isEqualTo(200);
    // a ninth call whose summary compaction activates
    ObjectNode ninth = JSON.createObjectNode();
    ninth.putArray("messages").addObject().put("role", "user").put("content", "message 8");
    ObjectNode ninthSummary = ninth.putObject("compaction").putObject("summary");
    ninthSummary.putObject("activation").put("message_count", 4);
    ninthSummary.putObject("message_selection").put("keep_last_messages", 2);
    HttpResponse<String> n = post("/v1/chats/sum/calls", ninth.toString(), ACME_KEY);
    assertThat(n.statusCode()).as(n.body()).isEqualTo(200);
    assertThat(
            JSON.readTree(n.body())
                .at("/_gpt_chat_details/compaction/summary/activated")
                .asBoolean())
        .as(n.body())
        .isTrue();
    // another tenant's chat
    ObjectNode other = JSON.createObjectNode().put("model", "openai/gpt-4o-mini");
    other.putArray("messages").addObject().put("role", "user").put("content", "secret");
    assertThat(post("/v1/chats/secret-chat/calls", other.toString(), OTHER_KEY).statusCode())
        .isEqualTo(200);

    // a proxy conversation of acme: a tool loop the proxy compacts at its budget
    ObjectNode body = JSON.createObjectNode().put("model", "gpt-4o");
    body.putArray("messages")
        .add(JSON.createObjectNode().put("role", "system").put("content", "You fix bugs."))
        .add(JSON.createObjectNode().put("role", "user").put("content", "Fix the failing test."));
    for (int i = 0; i < 14; i++) {
      model.enqueue(Reply.toolCall("call_" + i, "bash", "{\"cmd\": \"cat file" + i + ".txt\"}"));
      HttpResponse<String> a =
          http.send(
              HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/chat/completions"))
                  .header("Authorization", "Bearer " + ACME_KEY)
                  .header("Content-Type", "application/json")
                  .header("X-Compactor-Budget", "3000")
                  .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(a.statusCode()).as(a.body()).isEqualTo(200);
      conversationId = a.headers().firstValue("x-compactor-conversation").orElseThrow();
      JsonNode reply = JSON.readTree(a.body()).at("/choices/0/message");
      body.withArray("messages").add(reply);
      body.withArray("messages")
          .addObject()
          .put("role", "tool")
          .put("tool_call_id", "call_" + i)
          .put("content", ("output line " + i + " of a long file\n").repeat(60));
    }
    assertThat(proxy.byId("acme", conversationId).orElseThrow().compactions()).isPositive();
    browser = Browser.start(tmp.resolve("profile"));
  }

  static HttpResponse<String> get(String path, String key) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
            .header("Authorization", "Bearer " + key)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String path, String body, String key) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
            .header("Authorization", "Bearer " + key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @AfterAll
  static void tearDown() throws Exception {
    Browser.closeAll(browser, server, proxy, chats, model);
  }

  /** Logs in through the form, as a person would. */
  private static void login(String key) {
    browser.driver.manage().deleteAllCookies();
    browser.driver.get(server.baseUrl() + "/inspect");
    submitKey(key);
  }

  /** Types the key into the form and waits until the page the form led to has loaded. */
  private static void submitKey(String key) {
    browser.driver.findElement(By.id("key")).sendKeys(key);
    WebElement button = browser.driver.findElement(By.cssSelector("#login button"));
    button.click();
    WebDriverWait wait = new WebDriverWait(browser.driver, Duration.ofSeconds(20));
    // the form's page is gone once its button is detached; Chromium reports that as a stale
    // element or, while it is navigating, as a node that "does not belong to the document"
    wait.until(
        d -> {
          try {
            button.isEnabled();
            return false;
          } catch (org.openqa.selenium.StaleElementReferenceException e) {
            return true;
          } catch (org.openqa.selenium.WebDriverException e) {
            if (String.valueOf(e.getMessage()).contains("does not belong to the document")) {
              return true;
            }
            throw e;
          }
        });
    wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("h1")));
  }

  @Test
  void tenantMode_asksForAKey_keepsItInAnHttpOnlyCookie_neverInTheAddress() throws Exception {
    browser.driver.manage().deleteAllCookies();
    browser.driver.get(server.baseUrl() + "/inspect");
    assertThat(browser.driver.findElements(By.id("login"))).hasSize(1);
    assertThat(browser.driver.findElements(By.cssSelector("tr.chat"))).isEmpty();
    browser.screenshot("inspector-login");

    submitKey("cpk_wrong");
    assertThat(browser.driver.findElement(By.id("login-error")).getText()).contains("unknown");

    login(ACME_KEY);
    assertThat(browser.driver.getCurrentUrl()).doesNotContain(ACME_KEY).endsWith("/inspect");
    Cookie c = browser.driver.manage().getCookieNamed(InspectorRoutes.KEY_COOKIE);
    assertThat(c).isNotNull();
    assertThat(c.isHttpOnly()).isTrue();
    assertThat(c.getSameSite()).isEqualTo("Strict");
    assertThat(c.getPath()).isEqualTo("/inspect");
    assertThat(browser.driver.executeScript("return document.cookie;").toString())
        .doesNotContain(ACME_KEY);
    for (WebElement a : browser.driver.findElements(By.cssSelector("a[href]"))) {
      assertThat(a.getDomAttribute("href")).doesNotContain(ACME_KEY);
    }
  }

  @Test
  void list_showsTheTenantsChatsAndConversations_andNoOneElses() throws Exception {
    login(ACME_KEY);
    List<WebElement> chatRows = browser.driver.findElements(By.cssSelector("#chats tr.chat"));
    assertThat(chatRows).hasSize(1);
    assertThat(chatRows.get(0).getText()).contains("sum").contains("openai/gpt-4o-mini");
    assertThat(browser.driver.findElements(By.cssSelector("#conversations tr.conversation")))
        .hasSize(1);
    assertThat(browser.driver.getPageSource()).doesNotContain("secret-chat");
    browser.screenshot("inspector-service-list");

    browser.driver.get(server.baseUrl() + "/inspect/chats/secret-chat");
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).isEqualTo("404");
    login(OTHER_KEY);
    assertThat(browser.driver.findElements(By.cssSelector("#chats tr.chat"))).hasSize(1);
    assertThat(browser.driver.findElements(By.cssSelector("#conversations tr.conversation")))
        .isEmpty();
    browser.driver.get(server.baseUrl() + "/inspect/conversations/" + conversationId);
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).isEqualTo("404");
  }

  @Test
  void chat_showsMessagesSettingsAndSummaries_andArchivedOnRequest() throws Exception {
    login(ACME_KEY);
    browser.driver.findElement(By.linkText("sum")).click();
    new WebDriverWait(browser.driver, Duration.ofSeconds(20))
        .until(ExpectedConditions.presenceOfElementLocated(By.id("messages")));
    int total =
        chats
            .overview(dev.compactor.chat.base.ChatKey.of("acme", "sum"))
            .orElseThrow()
            .messageCount();
    int archived =
        chats
            .overview(dev.compactor.chat.base.ChatKey.of("acme", "sum"))
            .orElseThrow()
            .archivedCount();
    assertThat(archived).isPositive();
    assertThat(browser.driver.findElements(By.cssSelector("#messages tr.message"))).hasSize(total);
    assertThat(browser.driver.findElements(By.cssSelector("#messages tr.archived"))).isEmpty();
    assertThat(browser.driver.findElement(By.id("settings-given")).getText())
        .contains("message_count");
    assertThat(browser.driver.findElement(By.id("settings-effective")).getText())
        .contains("summary");
    assertThat(browser.driver.findElements(By.cssSelector("#summaries .summary"))).hasSize(2);
    // one row per call, as the API lists the stored calls
    JsonNode calls = JSON.readTree(get("/v1/chats/sum/calls", ACME_KEY).body()).get("calls");
    assertThat(calls).hasSize(9);
    List<WebElement> rows = browser.driver.findElements(By.cssSelector("#calls tr.call-report"));
    assertThat(rows).hasSize(9);
    for (int i = 0; i < 9; i++) {
      JsonNode c = calls.get(i);
      WebElement row = rows.get(i);
      assertThat(row.getAttribute("data-action")).isEqualTo(c.get("action").asText());
      assertThat(row.findElement(By.cssSelector(".tokens-after")).getText().replace(",", ""))
          .isEqualTo(c.get("tokens_after").asText());
      assertThat(row.getText()).contains(c.get("called_at").asText(), "gpt-4o-mini");
    }
    assertThat(rows.get(8).getAttribute("data-action")).isEqualTo("summarized");
    assertThat(rows.get(8).findElement(By.cssSelector(".summary-uuid")).getText())
        .isEqualTo(calls.get(8).get("gpt_summary_uuid").asText())
        .isEqualTo(
            chats.summaries(dev.compactor.chat.base.ChatKey.of("acme", "sum")).get(1).uuid());
    assertThat(rows.get(0).getAttribute("data-action")).isEqualTo("none");
    assertThat(browser.driver.findElement(By.id("summaries")).getText())
        .contains("SUMMARY of the earlier turns");
    // markup in a message is text, never run
    assertThat(browser.driver.executeScript("return window.__injected === undefined;"))
        .isEqualTo(Boolean.TRUE);
    assertThat(browser.driver.findElements(By.cssSelector("#messages b"))).isEmpty();

    browser.driver.findElement(By.id("show-archived")).click();
    new WebDriverWait(browser.driver, Duration.ofSeconds(20))
        .until(
            ExpectedConditions.presenceOfElementLocated(By.cssSelector("#messages tr.archived")));
    assertThat(browser.driver.findElements(By.cssSelector("#messages tr.archived")))
        .hasSize(archived);
    assertThat(browser.driver.findElement(By.id("messages")).getText()).contains(INJECTED);
    browser.screenshot("inspector-chat");
  }

  @Test
  void proxyConversation_showsTheStoredViewByKind_andRecoversAStubToTheStoredItem()
      throws Exception {
    login(ACME_KEY);
    browser.driver.get(server.baseUrl() + "/inspect/conversations/" + conversationId);
    List<ProxyStore.LogEntry> log = proxy.log(conversationId);
    assertThat(browser.driver.findElements(By.cssSelector("#master tr.message")))
        .hasSize(log.size());
    List<WebElement> entries = browser.driver.findElements(By.cssSelector("tr.entry"));
    List<WebElement> synthesized =
        browser.driver.findElements(By.cssSelector("tr.entry:not(.kind-verbatim)"));
    assertThat(synthesized).isNotEmpty();
    assertThat(entries.size()).isGreaterThan(synthesized.size());
    // the counts shown add up to the entries shown
    int counted = 0;
    for (WebElement c : browser.driver.findElements(By.cssSelector("#kind-counts .count b"))) {
      counted += Integer.parseInt(c.getText());
    }
    assertThat(counted).isEqualTo(entries.size());

    // the policy masks (placeholders) or trims (stubs) this loop's outputs, as its cost planner
    // decides: recover the first tool output it rewrote, whichever it is
    WebElement stub =
        browser.driver.findElement(By.cssSelector("tr.entry.kind-stubbed, tr.entry.kind-masked"));
    stub.findElement(By.cssSelector("a.recover")).click();
    WebElement text =
        new WebDriverWait(browser.driver, Duration.ofSeconds(20))
            .until(
                ExpectedConditions.presenceOfNestedElementLocatedBy(
                    stub, By.cssSelector(".recovered pre.original-text")));
    String original = text.getDomProperty("textContent");
    // the stored item, exactly as the proxy logged it: a tool result with its long output
    assertThat(log.stream().map(ProxyStore.LogEntry::body)).contains(original);
    assertThat(JSON.readTree(original).path("role").asText()).isEqualTo("tool");
    assertThat(JSON.readTree(original).path("content").asText()).contains("of a long file");
    assertThat(
            browser
                .driver
                .findElement(By.id("context-chart"))
                .findElements(By.cssSelector("rect.bar")))
        .hasSize((int) log.stream().filter(e -> e.kind().equals("reply")).count());
    // the chart shows what the proxy sent per call, as its journal rows say, compactions marked
    List<ProxyStore.RequestRecord> requests = proxy.requests(conversationId);
    List<WebElement> bars =
        browser.driver.findElement(By.id("context-chart")).findElements(By.cssSelector("rect.bar"));
    assertThat(requests).hasSize(bars.size());
    for (int i = 0; i < bars.size(); i++) {
      assertThat(Long.parseLong(bars.get(i).getAttribute("data-tokens")))
          .isEqualTo(requests.get(i).request().tokensAfter());
    }
    List<ProxyStore.RequestRecord> compacting =
        requests.stream().filter(r -> r.request().strategy() != null).toList();
    assertThat(compacting).isNotEmpty();
    assertThat(
            browser
                .driver
                .findElement(By.id("context-chart"))
                .findElements(By.cssSelector("line.compaction")))
        .hasSize(compacting.size());
    List<WebElement> journal =
        browser.driver.findElements(By.cssSelector("#journal tr.compaction"));
    assertThat(journal).hasSize(compacting.size());
    ProxyStore.Request first = compacting.get(0).request();
    assertThat(journal.get(0).getText()).contains(first.strategy(), first.trigger());
    assertThat(journal.get(0).findElement(By.cssSelector(".tokens-before")).getText())
        .isEqualTo(String.format(java.util.Locale.ROOT, "%,d", first.tokensBefore()));
    assertThat(journal.get(0).findElement(By.cssSelector(".tokens-after")).getText())
        .isEqualTo(String.format(java.util.Locale.ROOT, "%,d", first.tokensAfter()));
    // the compaction came on a later call and made the context smaller
    int at = requests.indexOf(compacting.get(0));
    assertThat(at).isPositive();
    assertThat(first.tokensAfter()).isLessThan(first.tokensBefore());
    browser.screenshot("inspector-proxy");
  }
}
