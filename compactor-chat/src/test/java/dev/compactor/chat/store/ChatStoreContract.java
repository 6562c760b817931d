package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.ChatTaskRequest;
import dev.compactor.chat.ChatTaskResult;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.store.ChatWork.Outcome;
import dev.compactor.chat.testing.FakeChatModel;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ModelApi;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ChatStore} must do. Run against SQLite and PostgreSQL by subclasses that
 * provide a fresh, empty store per test.
 */
public abstract class ChatStoreContract<S extends ChatStore> {
  private static final Instant T0 = Instant.parse("2025-03-01T10:00:00.123456Z");

  private S store;

  /** Opens the store of the current test; within one test, every call opens the same database. */
  protected abstract S open();

  /**
   * The store under test: fresh and empty for each test (opened on first use, once, also when
   * concurrent calls are the first).
   */
  protected final synchronized S store() {
    if (store == null) {
      store = open();
    }
    return store;
  }

  /** The store closed and opened again on the same database. */
  protected final synchronized S reopen() {
    closeStore();
    return store();
  }

  /** Closes the store if it is open; done after every test. */
  @AfterEach
  protected final synchronized void closeStore() {
    if (store != null) {
      store.close();
      store = null;
    }
  }

  private static ChatKey key(String id) {
    return new ChatKey("tenant-a", id);
  }

  /** Appends {@code added} to the chat, creating it when needed. */
  private static void append(ChatStore store, ChatKey key, Message... added) {
    store.update(
        key,
        chat -> {
          ChatRecord r = chat.exists() ? chat.record() : ChatRecord.fresh(key, T0);
          List<Message> h = new ArrayList<>(chat.messages());
          h.addAll(List.of(added));
          return Outcome.of(new ChatUpdate(r, h, List.of(), List.of()), null);
        });
  }

  private static Message richAssistant() {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("id", "cmp_1");
    item.put("type", "compaction");
    item.put("encrypted_content", "gAAAA-opaque");
    Map<String, Object> carrier = new LinkedHashMap<>();
    carrier.put("provider", "openai");
    carrier.put("item", item);
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("compaction_items", List.of(carrier));
    extra.put("note", 3);
    return Message.builder(Role.ASSISTANT)
        .id("a1")
        .content("Checking the weather — ☀️ \"quoted\"\nsecond line")
        .reasoning(List.of(new ReasoningBlock("thinking", "Need Oslo.", "sig-123")))
        .toolCalls(
            List.of(
                new ToolCall("call_1", "get_weather", "{\"city\":\"Oslo\"}"),
                new ToolCall("call_2", "get_time", "{}")))
        .timestamp(T0.plusNanos(1))
        .hidden(true)
        .metadata(
            new MessageMetadata(
                "gpt-5-mini",
                "openai",
                new Usage(100, 20, 4000, 10, 5),
                new InputFingerprint(3, "abc123", "gpt-5-mini"),
                extra))
        .build();
  }

  @Test
  void find_neverStoredChat_isEmpty() {
    assertThat(store().find(key("nope"))).isEmpty();
    assertThat(store().summaries(key("nope"))).isEmpty();
    assertThat(store().archivedMessages(key("nope"))).isEmpty();
  }

  @Test
  void update_newChat_storesRecordAndHistory_readBackEqual() {
    ChatKey k = key("c1");
    List<Message> history =
        List.of(
            Message.builder(Role.SYSTEM).id("s").content("Be brief.").timestamp(T0).build(),
            Message.builder(Role.USER).id("u1").content("Weather?").timestamp(T0).build(),
            richAssistant(),
            Message.builder(Role.TOOL).id("t1").toolCallId("call_1").content("sunny").build(),
            Message.builder(Role.TOOL)
                .id("t2")
                .toolCallId("call_2")
                .content("")
                .uiOnly(true)
                .build());
    ChatRecord r =
        new ChatRecord(
            k, "{\"summary\":{}}", "openai/gpt-5-mini", 7, 1200L, 30L, 0, T0, T0.plusSeconds(1));

    String value =
        store()
            .update(
                k,
                chat -> {
                  assertThat(chat.exists()).isFalse();
                  assertThat(chat.messages()).isEmpty();
                  return Outcome.of(new ChatUpdate(r, history, List.of(), List.of()), "done");
                });

    assertThat(value).isEqualTo("done");
    ChatSnapshot s = store().find(k).orElseThrow();
    assertThat(s.messages()).containsExactlyElementsOf(history);
    assertThat(s.record().settings()).isEqualTo("{\"summary\":{}}");
    assertThat(s.record().model()).isEqualTo("openai/gpt-5-mini");
    assertThat(s.record().interactions()).isEqualTo(7);
    assertThat(s.record().lastContextTokens()).isEqualTo(1230L);
    assertThat(s.record().createdAt()).isEqualTo(T0);
    assertThat(s.record().updatedAt()).isEqualTo(T0.plusSeconds(1));
    assertThat(s.record().version()).isEqualTo(1);
  }

  @Test
  void loneSurrogates_surviveStorageExactly() {
    ChatKey k = key("c-surrogates");
    String text = "half \uD83D, other half \uDE00, whole \uD83D\uDE00, é";
    Message m =
        Message.builder(Role.USER)
            .id("u1")
            .content(text)
            .metadata(
                new dev.compactor.core.message.MessageMetadata(
                    null, null, null, null, java.util.Map.of("note", "\uDBFF")))
            .build();
    append(store(), k, m);
    Message back = reopen().find(k).orElseThrow().messages().get(0);
    assertThat(back.content()).isEqualTo(text);
    assertThat(back.metadata().extra()).containsEntry("note", "\uDBFF");
  }

  @Test
  void update_existingChat_appendsInOrder_andIncrementsVersion() {
    ChatKey k = key("c2");
    append(store(), k, Message.builder(Role.USER).id("u1").content("one").build());
    append(store(), k, Message.builder(Role.ASSISTANT).id("a1").content("two").build());
    append(store(), k, Message.builder(Role.USER).id("u2").content("three").build());

    ChatSnapshot s = store().find(k).orElseThrow();
    assertThat(s.messages()).extracting(m -> m.id().value()).containsExactly("u1", "a1", "u2");
    assertThat(s.record().version()).isEqualTo(3);
  }

  @Test
  void update_workThrows_newChatStaysAbsent() {
    ChatKey k = key("c3");
    assertThatThrownBy(
            () ->
                store()
                    .update(
                        k,
                        chat -> {
                          throw new IllegalStateException("boom");
                        }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("boom");
    assertThat(store().find(k)).isEmpty();
  }

  @Test
  void update_workThrows_existingChatUnchanged() {
    ChatKey k = key("c4");
    append(store(), k, Message.builder(Role.USER).id("u1").content("one").build());
    ChatSnapshot before = store().find(k).orElseThrow();

    assertThatThrownBy(
            () ->
                store()
                    .update(
                        k,
                        chat -> {
                          throw new ChatTaskException(ChatTaskException.Code.MODEL_ERROR, "no");
                        }))
        .isInstanceOf(ChatTaskException.class);

    assertThat(store().find(k).orElseThrow()).isEqualTo(before);
  }

  @Test
  void update_unchangedOutcome_storesNothing() {
    ChatKey k = key("c5");
    Integer value = store().update(k, chat -> Outcome.unchanged(42));
    assertThat(value).isEqualTo(42);
    assertThat(store().find(k)).isEmpty();
  }

  @Test
  void update_removingWithoutArchiving_isRejected_andStoresNothing() {
    ChatKey k = key("c6");
    append(
        store(),
        k,
        Message.builder(Role.USER).id("u1").content("one").build(),
        Message.builder(Role.USER).id("u2").content("two").build());
    ChatSnapshot before = store().find(k).orElseThrow();

    assertThatThrownBy(
            () ->
                store()
                    .update(
                        k,
                        chat ->
                            Outcome.of(
                                new ChatUpdate(
                                    chat.record(),
                                    chat.messages().subList(1, 2),
                                    List.of(),
                                    List.of()),
                                null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("u1");
    assertThat(store().find(k).orElseThrow()).isEqualTo(before);
  }

  @Test
  void update_summaryInTheMiddle_movesKeptMessages_archivesCovered_andKeepsTheRecord() {
    ChatKey k = key("c7");
    List<Message> h = new ArrayList<>();
    h.add(Message.builder(Role.SYSTEM).id("sys").content("main").build());
    for (int i = 0; i < 8; i++) {
      h.add(
          Message.builder(i % 2 == 0 ? Role.USER : Role.ASSISTANT)
              .id("m" + i)
              .content("text " + i)
              .build());
    }
    append(store(), k, h.toArray(Message[]::new));
    Message summary =
        Message.builder(Role.SYSTEM).id("summary-u1").content("Summary: eight things").build();
    SummaryRecord record =
        new SummaryRecord(
            "u1",
            k,
            T0,
            SummaryRecord.Trigger.AUTO,
            "openai/gpt-5-mini",
            List.of("m0", "m1", "m2", "m3", "m4", "m5"),
            9,
            4,
            "summary-u1",
            "eight things",
            new Usage(500, 40, 0, 0, 0),
            new BigDecimal("0.000205"));

    store()
        .update(
            k,
            chat -> {
              List<Message> kept = new ArrayList<>();
              kept.add(chat.messages().get(0));
              kept.add(summary);
              kept.addAll(chat.messages().subList(7, 9));
              List<ArchivedMessage> archived = new ArrayList<>();
              for (Message m : chat.messages().subList(1, 7)) {
                archived.add(new ArchivedMessage(m, ArchivedMessage.Reason.SUMMARIZED, "u1", T0));
              }
              return Outcome.of(
                  new ChatUpdate(chat.record(), kept, archived, List.of(record)), null);
            });

    assertThat(store().find(k).orElseThrow().messages())
        .extracting(m -> m.id().value())
        .containsExactly("sys", "summary-u1", "m6", "m7");
    assertThat(store().archivedMessages(k))
        .extracting(a -> a.message().id().value())
        .containsExactly("m0", "m1", "m2", "m3", "m4", "m5");
    assertThat(store().archivedMessages(k))
        .allSatisfy(
            a -> {
              assertThat(a.reason()).isEqualTo(ArchivedMessage.Reason.SUMMARIZED);
              assertThat(a.summaryUuid()).isEqualTo("u1");
            });
    assertThat(store().archivedMessages(k).get(2).message()).isEqualTo(h.get(3));
    assertThat(store().summaries(k)).containsExactly(record);

    append(store(), k, Message.builder(Role.USER).id("later").content("after").build());
    assertThat(store().find(k).orElseThrow().messages())
        .extracting(m -> m.id().value())
        .containsExactly("sys", "summary-u1", "m6", "m7", "later");
  }

  @Test
  void update_tenantsAreSeparate() {
    ChatKey a = new ChatKey("tenant-a", "same");
    ChatKey b = new ChatKey("tenant-b", "same");
    append(store(), a, Message.builder(Role.USER).id("x").content("for a").build());
    append(store(), b, Message.builder(Role.USER).id("x").content("for b").build());

    assertThat(store().find(a).orElseThrow().messages().get(0).content()).isEqualTo("for a");
    assertThat(store().find(b).orElseThrow().messages().get(0).content()).isEqualTo("for b");
  }

  @Test
  void update_anotherChatProceeds_whileOneChatIsHeld() throws Exception {
    ChatKey held = key("held");
    ChatKey other = key("other");
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> holder =
          pool.submit(
              () ->
                  store()
                      .update(
                          held,
                          chat -> {
                            entered.countDown();
                            try {
                              release.await();
                            } catch (InterruptedException e) {
                              throw new IllegalStateException(e);
                            }
                            return Outcome.of(
                                new ChatUpdate(
                                    ChatRecord.fresh(held, T0),
                                    List.of(
                                        Message.builder(Role.USER).id("h").content("held").build()),
                                    List.of(),
                                    List.of()),
                                null);
                          }));
      entered.await();
      // The held chat's work is in progress; another chat is read and written meanwhile.
      append(store(), other, Message.builder(Role.USER).id("o").content("other").build());
      assertThat(store().find(other)).isPresent();
      release.countDown();
      holder.get(60, TimeUnit.SECONDS);
      assertThat(store().find(held).orElseThrow().messages()).hasSize(1);
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void update_fiftyConcurrentUpdatesOfOneChat_loseAndDuplicateNothing() throws Exception {
    ChatKey k = key("busy");
    int n = 50;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String id = "m" + i;
        futures.add(
            pool.submit(
                () -> append(store(), k, Message.builder(Role.USER).id(id).content(id).build())));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    ChatSnapshot s = store().find(k).orElseThrow();
    assertThat(s.messages()).hasSize(n);
    assertThat(new HashSet<>(s.messages().stream().map(m -> m.id().value()).toList())).hasSize(n);
    assertThat(s.record().version()).isEqualTo(n);
  }

  private ChatTaskService service(FakeChatModel model) {
    return ChatTaskService.builder(store()).models(name -> model).build();
  }

  private record CallOutcome(int index, ChatTaskResult result, ChatTaskException error) {}

  /**
   * Fifty calls on 8 threads, each with its own request built from a fresh builder ({@code base}
   * makes one per call: a builder is not thread-safe).
   */
  private List<CallOutcome> fiftyCalls(
      ChatTaskService chats, ChatKey k, Supplier<ChatTaskRequest.Builder> base) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<CallOutcome>> futures = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        int index = i;
        futures.add(
            pool.submit(
                () -> {
                  ChatTaskRequest req =
                      base.get()
                          .messages(
                              Message.builder(Role.USER)
                                  .id("u" + index)
                                  .content("call " + index)
                                  .build())
                          .build();
                  try {
                    return new CallOutcome(index, chats.call(k, req), null);
                  } catch (ChatTaskException e) {
                    return new CallOutcome(index, null, e);
                  }
                }));
      }
      List<CallOutcome> out = new ArrayList<>();
      for (Future<CallOutcome> f : futures) {
        out.add(f.get(120, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private static void assertEachSuccessIsInTheHistoryOnce(
      List<CallOutcome> outcomes, List<Message> history) {
    Set<String> succeeded = new HashSet<>();
    for (CallOutcome o : outcomes) {
      if (o.result() != null) {
        succeeded.add("u" + o.index());
      }
    }
    List<String> users =
        history.stream().filter(m -> m.role() == Role.USER).map(m -> m.id().value()).toList();
    assertThat(users).doesNotHaveDuplicates();
    assertThat(new HashSet<>(users)).isEqualTo(succeeded);
    for (int i = 0; i < history.size(); i += 2) {
      Message user = history.get(i);
      Message reply = history.get(i + 1);
      assertThat(user.role()).isEqualTo(Role.USER);
      assertThat(reply.role()).isEqualTo(Role.ASSISTANT);
      assertThat(reply.content()).isEqualTo("echo: " + user.content());
    }
  }

  /**
   * Of the fifty calls, {@code succeeded} returned a result and the others failed with {@code
   * refusal}.
   */
  private static void assertSucceededAndRefused(
      List<CallOutcome> outcomes, int succeeded, ChatTaskException.Code refusal) {
    assertThat(outcomes).hasSize(50);
    assertThat(outcomes.stream().filter(o -> o.result() != null)).hasSize(succeeded);
    assertThat(outcomes.stream().filter(o -> o.error() != null))
        .hasSize(50 - succeeded)
        .allSatisfy(o -> assertThat(o.error().code()).isEqualTo(refusal));
  }

  /**
   * What {@link #fiftyCallsToGpt5Mini} did: the model, each call's outcome, the chat afterwards.
   */
  private record Fifty(FakeChatModel model, List<CallOutcome> outcomes, ChatSnapshot chat) {}

  /**
   * {@link #fiftyCalls} to the chat {@code id} with openai/gpt-5-mini on the Responses API, each
   * request with the failsafe {@code limits}.
   */
  private Fifty fiftyCallsToGpt5Mini(String id, UnaryOperator<ChatTaskRequest.Builder> limits)
      throws Exception {
    FakeChatModel model = new FakeChatModel("openai/gpt-5-mini", ModelApi.RESPONSES);
    ChatKey k = key(id);
    List<CallOutcome> outcomes =
        fiftyCalls(
            service(model),
            k,
            () -> limits.apply(ChatTaskRequest.builder().model("openai/gpt-5-mini")));
    return new Fifty(model, outcomes, store().find(k).orElseThrow());
  }

  @Test
  void fiftyConcurrentCalls_interactionsFailsafe_exactCount_noLostOrDuplicatedMessage()
      throws Exception {
    Fifty f =
        fiftyCallsToGpt5Mini(
            "fifty-interactions", b -> b.stopOnHighMessages(null).stopOnHighInteractions(40));

    assertSucceededAndRefused(f.outcomes(), 40, ChatTaskException.Code.FAILSAFE_INTERACTIONS);
    assertThat(f.chat().record().interactions()).isEqualTo(40);
    assertThat(f.chat().messages()).hasSize(80);
    assertThat(f.model().requests()).hasSize(40);
    assertEachSuccessIsInTheHistoryOnce(f.outcomes(), f.chat().messages());
    assertThat(
            f.outcomes().stream()
                .filter(o -> o.result() != null)
                .map(o -> o.result().details().interactions()))
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.LongStream.rangeClosed(1, 40).boxed().toList());
  }

  @Test
  void fiftyConcurrentCalls_messagesFailsafe_exactCount_noLostOrDuplicatedMessage()
      throws Exception {
    // Each call adds a user message and a reply; a call is refused when the history plus its one
    // message would exceed 61, so calls succeed while the history holds 0, 2, …, 60 messages.
    Fifty f = fiftyCallsToGpt5Mini("fifty-messages", b -> b.stopOnHighMessages(61));

    assertSucceededAndRefused(f.outcomes(), 31, ChatTaskException.Code.FAILSAFE_MESSAGES);
    assertThat(f.chat().messages()).hasSize(62);
    assertThat(f.chat().record().interactions()).isEqualTo(31);
    assertEachSuccessIsInTheHistoryOnce(f.outcomes(), f.chat().messages());
  }

  @Test
  void reopen_keepsEverything_andMigrationsRunOnce() {
    ChatKey k = key("kept");
    append(store(), k, richAssistant());
    ChatSnapshot before = store().find(k).orElseThrow();

    ChatStore again = reopen();

    assertThat(again.find(k).orElseThrow()).isEqualTo(before);
    append(again, k, Message.builder(Role.USER).id("u9").content("more").build());
    assertThat(again.find(k).orElseThrow().messages()).hasSize(2);
  }
}
