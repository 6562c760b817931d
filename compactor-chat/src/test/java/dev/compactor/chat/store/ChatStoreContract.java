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
import org.assertj.core.api.AbstractThrowableAssert;
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
    assertThatUpdate(
            k,
            chat -> {
              throw new IllegalStateException("boom");
            })
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("boom");
    assertThat(store().find(k)).isEmpty();
  }

  @Test
  void update_workThrows_existingChatUnchanged() {
    ChatKey k = key("c4");
    append(store(), k, Message.builder(Role.USER).id("u1").content("one").build());
    ChatSnapshot before = store().find(k).orElseThrow();

    assertThatUpdate(
            k,
            chat -> {
              throw new ChatTaskException(ChatTaskException.Code.MODEL_ERROR, "no");
            })
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

    assertThatUpdate(
            k,
            chat ->
                Outcome.of(
                    new ChatUpdate(
                        chat.record(), chat.messages().subList(1, 2), List.of(), List.of()),
                    null))
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
    try (HeldChat h =
        new HeldChat(
            1,
            held,
            chat ->
                Outcome.of(
                    new ChatUpdate(
                        ChatRecord.fresh(held, T0),
                        List.of(Message.builder(Role.USER).id("h").content("held").build()),
                        List.of(),
                        List.of()),
                    null))) {
      h.awaitEntered();
      // The held chat's work is in progress; another chat is read and written meanwhile.
      append(store(), other, Message.builder(Role.USER).id("o").content("other").build());
      assertThat(store().find(other)).isPresent();
      h.releaseAndAwait();
      assertThat(store().find(held).orElseThrow().messages()).hasSize(1);
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

  /**
   * Assertions on what {@code store().update(key, work)} throws (it fails when nothing is thrown).
   */
  protected <T> AbstractThrowableAssert<?, ? extends Throwable> assertThatUpdate(
      ChatKey key, ChatWork<T> work) {
    return assertThatThrownBy(() -> store().update(key, work));
  }

  /**
   * An update of one chat, submitted to a pool of its own, that holds the chat (inside {@code
   * store().update}) until released, then does its work; closing releases it and stops the pool.
   */
  private final class HeldChat implements AutoCloseable {
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    final ExecutorService pool;
    private final Future<?> update;

    /** {@code threads}: the pool's size (the held update takes one). */
    HeldChat(int threads, ChatKey key, ChatWork<?> work) {
      pool = Executors.newFixedThreadPool(threads);
      update =
          pool.submit(
              () ->
                  store()
                      .update(
                          key,
                          chat -> {
                            entered.countDown();
                            try {
                              release.await();
                            } catch (InterruptedException e) {
                              throw new IllegalStateException(e);
                            }
                            return work.run(chat);
                          }));
    }

    /** Waits until the update holds the chat. */
    void awaitEntered() throws InterruptedException {
      assertThat(entered.await(60, TimeUnit.SECONDS)).as("the update holds the chat").isTrue();
    }

    /** Lets the update do its work and waits for it to finish. */
    void releaseAndAwait() throws Exception {
      release.countDown();
      update.get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
      release.countDown();
      pool.shutdownNow();
    }
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

  // ------------------------------------------------------------------ listing, paging, deletion

  /** Creates or appends to the chat, setting its last update to {@code updatedAt}. */
  private static void touchAt(ChatStore store, ChatKey key, Instant updatedAt, Message... added) {
    store.update(
        key,
        chat -> {
          ChatRecord old = chat.exists() ? chat.record() : ChatRecord.fresh(key, updatedAt);
          ChatRecord r =
              new ChatRecord(
                  key,
                  old.settings(),
                  "openai/gpt-5-mini",
                  old.interactions() + 1,
                  old.lastPromptTokens(),
                  old.lastCompletionTokens(),
                  0,
                  old.createdAt(),
                  updatedAt);
          List<Message> h = new ArrayList<>(chat.messages());
          h.addAll(List.of(added));
          return Outcome.of(new ChatUpdate(r, h, List.of(), List.of()), null);
        });
  }

  private static Message user(String id) {
    return Message.builder(Role.USER).id(id).content("text of " + id).build();
  }

  /** Every chat id of {@code tenant}, following the cursors with pages of {@code size}. */
  private static List<String> traverse(ChatStore store, String tenant, int size) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    do {
      ChatPage page = store.listChats(tenant, cursor, size);
      assertThat(page.chats().size()).isLessThanOrEqualTo(size);
      page.chats().forEach(o -> ids.add(o.record().key().chatId()));
      cursor = page.next();
    } while (cursor != null);
    return ids;
  }

  @Test
  void listChats_newestFirst_pagedByCursor_onlyTheTenantsChats_withCounters() {
    ChatKey old = key("old");
    ChatKey mid = key("mid");
    ChatKey recent = key("recent");
    touchAt(store(), old, T0, user("o1"));
    touchAt(store(), mid, T0.plusSeconds(10), user("m1"), user("m2"));
    touchAt(store(), recent, T0.plusSeconds(20), user("r1"));
    touchAt(store(), new ChatKey("tenant-b", "theirs"), T0.plusSeconds(30), user("t1"));
    // The old chat is updated last: it moves to the head.
    touchAt(store(), old, T0.plusSeconds(40), user("o2"), user("o3"));

    ChatPage first = store().listChats("tenant-a", null, 2);
    assertThat(first.chats())
        .extracting(o -> o.record().key().chatId())
        .containsExactly("old", "recent");
    assertThat(first.hasNext()).isTrue();
    ChatOverview o = first.chats().get(0);
    assertThat(o.record().key()).isEqualTo(old);
    assertThat(o.record().model()).isEqualTo("openai/gpt-5-mini");
    assertThat(o.record().interactions()).isEqualTo(2);
    assertThat(o.record().createdAt()).isEqualTo(T0);
    assertThat(o.record().updatedAt()).isEqualTo(T0.plusSeconds(40));
    assertThat(o.messageCount()).isEqualTo(3);
    assertThat(o.archivedCount()).isZero();
    assertThat(o.summaryCount()).isZero();

    ChatPage second = store().listChats("tenant-a", first.next(), 2);
    assertThat(second.chats()).extracting(c -> c.record().key().chatId()).containsExactly("mid");
    assertThat(second.chats().get(0).messageCount()).isEqualTo(2);
    assertThat(second.next()).isNull();

    assertThat(traverse(store(), "tenant-b", 10)).containsExactly("theirs");
    assertThat(store().listChats("nobody", null, 10).chats()).isEmpty();
    assertThat(store().listChats("nobody", null, 10).next()).isNull();
  }

  @Test
  void listChats_sameUpdateInstant_orderedByChatIdDescending_acrossPageBoundaries() {
    for (int i = 0; i < 7; i++) {
      touchAt(store(), key("c" + i), T0, user("u"));
    }
    assertThat(traverse(store(), "tenant-a", 3))
        .containsExactly("c6", "c5", "c4", "c3", "c2", "c1", "c0");
    // A full last page has a cursor whose next page is empty and final.
    ChatPage all = store().listChats("tenant-a", null, 7);
    assertThat(all.next()).isNull();
    ChatPage six = store().listChats("tenant-a", null, 6);
    ChatPage rest = store().listChats("tenant-a", six.next(), 6);
    assertThat(rest.chats()).extracting(c -> c.record().key().chatId()).containsExactly("c0");
    assertThat(rest.next()).isNull();
  }

  @Test
  void listChats_whileChatsAreAdded_listsEveryEarlierChatOnce_inOrder() throws Exception {
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      touchAt(store(), key(String.format("pre-%02d", i)), T0.plusMillis(i), user("u"));
      expected.add(0, String.format("pre-%02d", i));
    }
    CountDownLatch started = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<Integer> adder =
        pool.submit(
            () -> {
              int n = 0;
              while (!stop.get()) {
                // Newer than everything listed: new chats of this tenant and of another one.
                touchAt(store(), key("new-" + n), T0.plusSeconds(100 + n), user("u"));
                touchAt(
                    store(),
                    new ChatKey("tenant-b", "new-" + n),
                    T0.plusSeconds(100 + n),
                    user("u"));
                n++;
                started.countDown();
              }
              return n;
            });
    List<String> seen = new ArrayList<>();
    try {
      started.await(60, TimeUnit.SECONDS);
      String cursor = null;
      do {
        ChatPage page = store().listChats("tenant-a", cursor, 3);
        page.chats().forEach(c -> seen.add(c.record().key().chatId()));
        cursor = page.next();
      } while (cursor != null);
    } finally {
      stop.set(true);
    }
    int added = adder.get(60, TimeUnit.SECONDS);
    pool.shutdownNow();
    assertThat(added).isPositive();
    // Chats added during the traversal are newer than its first page: none shows up after it.
    List<String> earlier = seen.stream().filter(id -> id.startsWith("pre-")).toList();
    assertThat(earlier).containsExactlyElementsOf(expected);
    assertThat(new HashSet<>(seen)).hasSameSizeAs(seen);
    assertThat(seen.subList(seen.size() - 40, seen.size())).containsExactlyElementsOf(expected);
  }

  @Test
  void listChats_badArguments_areRefusedNamingTheValue() {
    assertThatThrownBy(() -> store().listChats("tenant-a", null, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("page size 0")
        .hasMessageContaining(String.valueOf(ChatStore.MAX_PAGE_SIZE));
    assertThatThrownBy(() -> store().listChats("tenant-a", null, ChatStore.MAX_PAGE_SIZE + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("page size " + (ChatStore.MAX_PAGE_SIZE + 1));
    assertThatThrownBy(() -> store().listChats("tenant-a", "not-a-cursor!", 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"not-a-cursor!\" is not a cursor");
    String forged = java.util.Base64.getUrlEncoder().encodeToString("c1|yesterday|x".getBytes());
    assertThatThrownBy(() -> store().listChats("tenant-a", forged, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not a cursor");
    assertThatThrownBy(() -> store().listChats(" ", null, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tenant");
  }

  @Test
  void listChats_aCursorOfAnotherTenant_listsOnlyTheCallersChats() {
    touchAt(store(), key("a1"), T0.plusSeconds(2), user("u"));
    touchAt(store(), key("a2"), T0.plusSeconds(1), user("u"));
    touchAt(store(), new ChatKey("tenant-b", "b1"), T0, user("u"));
    String cursorOfA = store().listChats("tenant-a", null, 1).next();
    assertThat(store().listChats("tenant-b", cursorOfA, 10).chats())
        .extracting(c -> c.record().key())
        .containsExactly(new ChatKey("tenant-b", "b1"));
  }

  /** A chat summarized twice (the second summary rolls up the first) and then set anew. */
  private ChatKey summarizedTwiceThenSet() {
    ChatKey k = key("history");
    append(store(), k, Message.builder(Role.SYSTEM).id("sys").content("main").build());
    append(store(), k, user("m0"), user("m1"), user("m2"), user("m3"));
    summarize(k, "s1", List.of("m0", "m1", "m2"));
    append(store(), k, user("m4"), user("m5"));
    // Now: sys, summary-s1, m3, m4, m5 → sys, summary-s2, m5
    summarize(k, "s2", List.of("summary-s1", "m3", "m4"));
    return k;
  }

  /** Replaces {@code covered} by a summary message placed after the main system message. */
  private void summarize(ChatKey k, String uuid, List<String> covered) {
    store()
        .update(
            k,
            chat -> {
              List<Message> kept = new ArrayList<>();
              List<ArchivedMessage> archived = new ArrayList<>();
              Message summary =
                  Message.builder(Role.SYSTEM)
                      .id("summary-" + uuid)
                      .content("Summary " + uuid)
                      .build();
              for (Message m : chat.messages()) {
                if (covered.contains(m.id().value())) {
                  archived.add(new ArchivedMessage(m, ArchivedMessage.Reason.SUMMARIZED, uuid, T0));
                } else {
                  kept.add(m);
                }
              }
              kept.add(1, summary);
              SummaryRecord record =
                  new SummaryRecord(
                      uuid,
                      k,
                      T0,
                      SummaryRecord.Trigger.AUTO,
                      "openai/gpt-5-mini",
                      covered,
                      chat.messages().size(),
                      kept.size(),
                      summary.id().value(),
                      "Summary " + uuid,
                      new Usage(10, 2, 0, 0, 0),
                      null);
              return Outcome.of(
                  new ChatUpdate(chat.record(), kept, archived, List.of(record)), null);
            });
  }

  private static List<String> ids(MessagePage page) {
    return page.messages().stream()
        .map(e -> (e.archived() ? "*" : "") + e.message().id().value())
        .toList();
  }

  @Test
  void messages_pagedByOffset_withTotal_andTheArchiveInTheOrderTheMessagesStood() {
    ChatKey k = summarizedTwiceThenSet();

    MessagePage history = store().messages(k, 0, 10, false).orElseThrow();
    assertThat(ids(history)).containsExactly("sys", "summary-s2", "m5");
    assertThat(history.total()).isEqualTo(3);
    assertThat(history.hasNext()).isFalse();

    MessagePage all = store().messages(k, 0, 100, true).orElseThrow();
    assertThat(ids(all))
        .containsExactly(
            "sys", "*m0", "*m1", "*m2", "*summary-s1", "*m3", "*m4", "summary-s2", "m5");
    assertThat(all.total()).isEqualTo(9);
    MessageEntry m1 = all.messages().get(2);
    assertThat(m1.archive().reason()).isEqualTo(ArchivedMessage.Reason.SUMMARIZED);
    assertThat(m1.archive().summaryUuid()).isEqualTo("s1");
    assertThat(m1.message().content()).isEqualTo("text of m1");
    assertThat(all.messages().get(4).archive().summaryUuid()).isEqualTo("s2");

    // Pages of 4 put together give the whole list.
    List<String> paged = new ArrayList<>();
    int offset = 0;
    MessagePage p;
    do {
      p = store().messages(k, offset, 4, true).orElseThrow();
      assertThat(p.offset()).isEqualTo(offset);
      paged.addAll(ids(p));
      offset = p.nextOffset();
    } while (p.hasNext());
    assertThat(paged).isEqualTo(ids(all));
    assertThat(store().messages(k, 2, 4, false).orElseThrow().messages()).hasSize(1);
    MessagePage beyond = store().messages(k, 50, 4, true).orElseThrow();
    assertThat(beyond.messages()).isEmpty();
    assertThat(beyond.total()).isEqualTo(9);
    assertThat(beyond.hasNext()).isFalse();

    // A set replaces the whole history: what it replaced comes before the new history.
    store()
        .update(
            k,
            chat -> {
              List<ArchivedMessage> gone = new ArrayList<>();
              for (Message m : chat.messages()) {
                gone.add(new ArchivedMessage(m, ArchivedMessage.Reason.REPLACED, null, T0));
              }
              return Outcome.of(
                  new ChatUpdate(chat.record(), List.of(user("n0")), gone, List.of()), null);
            });
    assertThat(ids(store().messages(k, 0, 100, true).orElseThrow()))
        .containsExactly(
            "*sys", "*m0", "*m1", "*m2", "*summary-s1", "*m3", "*m4", "*summary-s2", "*m5", "n0");
    MessageEntry sysEntry = store().messages(k, 0, 1, true).orElseThrow().messages().get(0);
    assertThat(sysEntry.archive().reason()).isEqualTo(ArchivedMessage.Reason.REPLACED);
    assertThat(ids(store().messages(k, 0, 100, false).orElseThrow())).containsExactly("n0");
  }

  @Test
  void messages_ofAChatNeverStoredOrOfAnotherTenant_isEmpty_andBadRangesAreRefused() {
    ChatKey k = key("mine");
    append(store(), k, user("u1"));
    assertThat(store().messages(key("nope"), 0, 10, true)).isEmpty();
    assertThat(store().messages(new ChatKey("tenant-b", "mine"), 0, 10, false)).isEmpty();
    assertThat(store().messages(new ChatKey("tenant-b", "mine"), 0, 10, true)).isEmpty();
    assertThatThrownBy(() -> store().messages(k, -1, 10, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("offset -1");
    assertThatThrownBy(() -> store().messages(k, 0, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("page size 0");
  }

  @Test
  void overview_countsHistoryArchiveAndSummaries_andIsScopedByTenant() {
    ChatKey k = summarizedTwiceThenSet();
    ChatOverview o = store().overview(k).orElseThrow();
    assertThat(o.messageCount()).isEqualTo(3);
    assertThat(o.archivedCount()).isEqualTo(6);
    assertThat(o.summaryCount()).isEqualTo(2);
    assertThat(o.record()).isEqualTo(store().find(k).orElseThrow().record());
    assertThat(store().overview(new ChatKey("tenant-b", k.chatId()))).isEmpty();
    assertThat(store().overview(key("nope"))).isEmpty();
  }

  @Test
  void calls_storeEachCallsCompactionReport_asReturned_andDeleteRemovesThem() {
    FakeChatModel model = new FakeChatModel("openai/gpt-5-mini", ModelApi.RESPONSES);
    ChatTaskService chats = service(model);
    ChatKey k = key("reported");
    ChatKey sibling = key("reported-sibling");
    var settings =
        dev.compactor.wire.json.Json.MAPPER
            .createObjectNode()
            .set(
                "summary",
                dev.compactor.wire.json.Json.MAPPER
                    .createObjectNode()
                    .set(
                        "activation",
                        dev.compactor.wire.json.Json.MAPPER
                            .createObjectNode()
                            .put("message_count", 4)));
    List<ChatTaskResult> results = new ArrayList<>();
    results.add(
        chats.call(
            k,
            ChatTaskRequest.builder()
                .model("openai/gpt-5-mini")
                .submitToModel(false)
                .messages(user("p0"), user("p1"))
                .build()));
    for (int i = 0; i < 6; i++) {
      results.add(
          chats.call(
              k,
              ChatTaskRequest.builder()
                  .compaction(i == 0 ? settings : null)
                  .messages(user("q" + i))
                  .build()));
    }
    chats.call(
        sibling, ChatTaskRequest.builder().model("openai/gpt-5-mini").messages(user("x")).build());

    List<CallRecord> calls = store().calls(k);
    assertThat(calls).hasSize(results.size());
    boolean summarized = false;
    for (int i = 0; i < calls.size(); i++) {
      CallRecord c = calls.get(i);
      ChatTaskResult r = results.get(i);
      assertThat(c.compaction()).isEqualTo(r.details().compaction());
      assertThat(c.model()).isEqualTo(r.details().model());
      assertThat(c.api()).isEqualTo(r.details().api());
      assertThat(c.messageCountAfter()).isEqualTo(r.details().messageCount());
      assertThat(c.submitted()).isEqualTo(i > 0);
      if (i > 0) {
        assertThat(c.messageCountBefore()).isEqualTo(calls.get(i - 1).messageCountAfter() + 1);
      }
      if (i > 0) {
        assertThat(c.tokensAfter()).isEqualTo(r.usage().usage().totalInput());
        assertThat(c.tokensBefore()).isEqualTo(i == 1 ? null : calls.get(i - 1).tokensAfter());
      } else {
        assertThat(c.tokensAfter()).isNull();
      }
      if (c.action() == CallRecord.Action.SUMMARIZED) {
        summarized = true;
        assertThat(c.summaryUuid()).isEqualTo(store().summaries(k).get(0).uuid());
        assertThat(c.compaction().summary().messageCountBefore())
            .isGreaterThan(c.compaction().summary().messageCountAfter());
      } else {
        assertThat(c.summaryUuid()).isNull();
      }
    }
    assertThat(summarized).as("one call summarized the chat").isTrue();
    assertThat(calls.get(0).compaction()).isNull();
    assertThat(calls.get(0).action()).isEqualTo(CallRecord.Action.NONE);
    assertThat(reopen().calls(k)).isEqualTo(calls);
    assertThat(store().calls(new ChatKey("tenant-b", k.chatId()))).isEmpty();

    assertThat(store().delete(k)).isTrue();
    assertThat(store().calls(k)).isEmpty();
    assertThat(store().calls(sibling)).hasSize(1);
  }

  @Test
  void delete_removesRecordHistoryArchiveAndSummaries_onlyOfThatTenantsChat() {
    ChatKey k = summarizedTwiceThenSet();
    ChatKey theirs = new ChatKey("tenant-b", k.chatId());
    append(store(), theirs, user("b1"));
    ChatKey sibling = key("sibling");
    append(store(), sibling, user("s1"));

    assertThat(store().delete(new ChatKey("tenant-c", k.chatId()))).isFalse();
    assertThat(store().delete(k)).isTrue();

    assertThat(store().find(k)).isEmpty();
    assertThat(store().overview(k)).isEmpty();
    assertThat(store().messages(k, 0, 10, true)).isEmpty();
    assertThat(store().summaries(k)).isEmpty();
    assertThat(store().archivedMessages(k)).isEmpty();
    assertThat(traverse(store(), "tenant-a", 10)).containsExactly("sibling");
    assertThat(store().find(theirs).orElseThrow().messages()).hasSize(1);
    assertThat(store().find(sibling).orElseThrow().messages()).hasSize(1);
    assertThat(store().delete(k)).isFalse();

    // The id starts a new chat: nothing of the deleted one comes back.
    append(store(), k, user("fresh"));
    ChatSnapshot again = store().find(k).orElseThrow();
    assertThat(again.messages()).extracting(m -> m.id().value()).containsExactly("fresh");
    assertThat(again.record().version()).isEqualTo(1);
    assertThat(store().archivedMessages(k)).isEmpty();
    assertThat(store().summaries(k)).isEmpty();
    assertThat(reopen().find(k).orElseThrow().messages()).hasSize(1);
  }

  /**
   * Makes the database refuse to delete a row of {@code chats}: a trigger that raises {@code
   * refused by test trigger}. The chat's row is deleted last, so its history is already gone when
   * this refuses.
   */
  protected abstract void refuseChatRowDeletes() throws Exception;

  @Test
  void delete_thatFailsPartWay_deletesNothing() throws Exception {
    ChatKey k = new ChatKey("t", "doomed");
    append(store(), k, Message.builder(Role.USER).id("m").content("kept").build());
    refuseChatRowDeletes();
    assertThatThrownBy(() -> store().delete(k))
        .isInstanceOf(ChatStoreException.class)
        .hasMessageContaining("deleting chat t/doomed")
        .hasMessageContaining("refused by test trigger");
    assertThat(store().find(k).orElseThrow().messages())
        .extracting(Message::content)
        .containsExactly("kept");
  }

  @Test
  void delete_ofOneChat_doesNotWaitForACallOnAnother_butWaitsForACallOnItself() throws Exception {
    ChatKey held = key("held");
    ChatKey other = key("other");
    append(store(), held, user("h0"));
    append(store(), other, user("o0"));
    try (HeldChat h =
        new HeldChat(
            2,
            held,
            chat -> {
              List<Message> m = new ArrayList<>(chat.messages());
              m.add(user("h1"));
              return Outcome.of(new ChatUpdate(chat.record(), m, List.of(), List.of()), null);
            })) {
      h.awaitEntered();
      // Another chat is deleted while the held one's call is in progress.
      assertThat(h.pool.submit(() -> store().delete(other)).get(30, TimeUnit.SECONDS)).isTrue();
      Future<Boolean> deleteHeld = h.pool.submit(() -> store().delete(held));
      Thread.sleep(300);
      assertThat(deleteHeld).as("waits for the call on its chat").isNotDone();
      h.releaseAndAwait();
      assertThat(deleteHeld.get(60, TimeUnit.SECONDS)).isTrue();
      assertThat(store().find(held)).isEmpty();
    }
  }
}
