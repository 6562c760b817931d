package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.store.ChatStores;
import dev.compactor.server.ServerFixture.Answer;
import dev.compactor.server.proxy.ProxyStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /openapi.json}: the served document is the resource, it is well-formed OpenAPI 3.1,
 * and its operations are exactly the server's routes (method and path template).
 */
class OpenApiTest {
  @TempDir Path dir;
  ServerFixture f;
  final OpenApiDoc doc = OpenApiDoc.load();

  @BeforeEach
  void start() {
    // the proxy on too: its routes are in the document
    Path db = dir.resolve("chats.db");
    f =
        new ServerFixture(
            ChatStores.open(db.toString()),
            Tenants.localMode(),
            ServerSettings.builder().port(0),
            Duration.ofSeconds(2),
            ProxyStore.openSqlite(db));
  }

  @AfterEach
  void stop() {
    f.close();
  }

  @Test
  void theServedDocumentIsTheResource() throws Exception {
    Answer a = f.get("/openapi.json", null);
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.raw().headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/json");
    assertThat(a.json()).isEqualTo(doc.root);
  }

  @Test
  void everyRouteIsDocumentedAndEveryDocumentedOperationIsARoute() {
    Set<String> routes = new TreeSet<>(f.server.routes());
    Set<String> documented = new TreeSet<>(doc.operations().keySet());
    Set<String> undocumented = new TreeSet<>(routes);
    undocumented.removeAll(documented);
    Set<String> notServed = new TreeSet<>(documented);
    notServed.removeAll(routes);
    assertThat(undocumented).as("routes the server registers that /openapi.json lacks").isEmpty();
    assertThat(notServed).as("operations /openapi.json documents that the server lacks").isEmpty();
  }

  @Test
  void theDocumentIsWellFormedOpenApi31() {
    JsonNode root = doc.root;
    assertThat(root.path("openapi").asText()).startsWith("3.1.");
    assertThat(root.at("/info/title").isTextual()).isTrue();
    assertThat(root.at("/info/version").isTextual()).isTrue();
    assertThat(root.path("paths").isObject()).isTrue();
    assertThat(root.at("/components/securitySchemes/bearerAuth/type").asText()).isEqualTo("http");
    assertThat(root.at("/components/securitySchemes/bearerAuth/scheme").asText())
        .isEqualTo("bearer");
    Set<String> ids = new HashSet<>();
    List<String> problems = new ArrayList<>();
    doc.operations()
        .forEach(
            (route, op) -> {
              if (!ids.add(op.path("operationId").asText())) {
                problems.add(route + ": operationId missing or not unique");
              }
              if (!op.path("responses").isObject() || op.path("responses").isEmpty()) {
                problems.add(route + ": no responses");
              }
              op.path("responses")
                  .fieldNames()
                  .forEachRemaining(
                      s -> {
                        if (!s.matches("[1-5][0-9][0-9]")) {
                          problems.add(route + ": response key " + s + " is not a status");
                        }
                      });
              op.path("security")
                  .forEach(
                      req ->
                          req.fieldNames()
                              .forEachRemaining(
                                  name -> {
                                    if (root.at("/components/securitySchemes/" + name)
                                        .isMissingNode()) {
                                      problems.add(route + ": unknown security scheme " + name);
                                    }
                                  }));
              // every {param} of the path template is a required path parameter
              String path = route.substring(route.indexOf(' ') + 1);
              Set<String> declared = new HashSet<>();
              JsonNode pathItem = root.path("paths").path(path);
              for (JsonNode list : List.of(pathItem.path("parameters"), op.path("parameters"))) {
                for (JsonNode p : list) {
                  JsonNode param = p.has("$ref") ? doc.resolve(p.path("$ref").asText()) : p;
                  if (param != null
                      && param.path("in").asText().equals("path")
                      && param.path("required").asBoolean()) {
                    declared.add(param.path("name").asText());
                  }
                }
              }
              Matcher m = Pattern.compile("\\{([^}]+)}").matcher(path);
              Set<String> inTemplate = new HashSet<>();
              while (m.find()) {
                inTemplate.add(m.group(1));
              }
              if (!declared.equals(inTemplate)) {
                problems.add(
                    route
                        + ": path parameters "
                        + declared
                        + " but the template has "
                        + inTemplate);
              }
            });
    collectRefs(root, "", problems);
    assertThat(problems).isEmpty();
  }

  private void collectRefs(JsonNode node, String where, List<String> problems) {
    if (node.isObject()) {
      JsonNode ref = node.get("$ref");
      if (ref != null && (!ref.isTextual() || doc.resolve(ref.asText()) == null)) {
        problems.add(where + ": $ref " + ref + " does not resolve");
      }
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        collectRefs(e.getValue(), where + "/" + e.getKey(), problems);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        collectRefs(node.get(i), where + "/" + i, problems);
      }
    }
  }

  @Test
  void answersHaveTheDocumentedPropertiesAndNoOthers() {
    Answer a = f.post("/v1/chats/c/calls", ServerFixture.userCall("openai/gpt-5-mini", "hi"), null);
    assertThat(a.status()).as(a.text()).isEqualTo(200);
    assertRequired("ChatTaskResult", a.json());
    assertRequired("Usage", a.json().path("usage"));
    assertRequired("ChatDetails", a.json().path("_gpt_chat_details"));
    Answer chat = f.get("/v1/chats/c", null);
    assertRequired("Chat", chat.json());
    Answer page = f.get("/v1/chats/c/messages", null);
    assertRequired("MessagePage", page.json());
    assertRequired("Message", page.json().at("/messages/0"));
    for (int i = 0; i < 5; i++) {
      f.post("/v1/chats/c/calls", ServerFixture.userCall("openai/gpt-5-mini", "m" + i), null);
    }
    Answer sum = f.post("/v1/chats/c/summarize", null, null); // 12 messages, the last 10 kept
    assertThat(sum.status()).as(sum.text()).isEqualTo(200);
    assertRequired("SummarizeResult", sum.json());
    assertRequired("SummaryReport", sum.json().path("summary"));
    assertRequired("Usage", sum.json().path("summary_usage"));
    Answer list = f.get("/v1/chats/c/summaries", null);
    assertRequired("SummaryList", list.json());
    assertRequired("SummaryRecord", list.json().at("/summaries/0"));
    Answer calls = f.get("/v1/chats/c/calls", null);
    assertRequired("CallList", calls.json());
    assertRequired("CallRecord", calls.json().at("/calls/0"));
    Answer proxied =
        f.post(
            "/v1/chat/completions",
            "{\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
            null);
    assertThat(proxied.status()).as(proxied.text()).isEqualTo(200);
    Answer conversations = f.get("/v1/proxy/conversations", null);
    assertRequired("ProxyConversationPage", conversations.json());
    JsonNode conversation = conversations.json().at("/conversations/0");
    assertRequired("ProxyConversation", conversation);
    String conv = conversation.path("id").asText();
    assertRequired("ProxyConversation", f.get("/v1/proxy/conversations/" + conv, null).json());
    Answer log = f.get("/v1/proxy/conversations/" + conv + "/messages", null);
    assertRequired("ProxyLogPage", log.json());
    assertRequired("ProxyLogItem", log.json().at("/messages/0"));
    assertRequired("Error", f.get("/v1/proxy/conversations/conv_none", null).json());
    Answer missing = f.get("/v1/chats/none", null);
    assertRequired("Error", missing.json());
    assertRequired("Error", f.post("/v1/chats/c/calls", "{", null).json());
  }

  /** {@code value} has every property the schema requires, and none it does not name. */
  private void assertRequired(String schema, JsonNode value) {
    JsonNode s = doc.root.at("/components/schemas/" + schema);
    assertThat(s.isObject()).as("schema " + schema).isTrue();
    for (JsonNode r : s.path("required")) {
      assertThat(value.has(r.asText())).as(schema + "." + r.asText() + " in " + value).isTrue();
    }
    value
        .fieldNames()
        .forEachRemaining(
            name ->
                assertThat(s.path("properties").has(name))
                    .as(schema + " documents the property " + name + " the server writes")
                    .isTrue());
  }
}
