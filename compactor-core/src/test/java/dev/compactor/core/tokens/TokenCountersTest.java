package dev.compactor.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TokenCountersTest {
  private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();
  private static final Encoding O200K = REGISTRY.getEncoding(EncodingType.O200K_BASE);
  private static final Encoding CL100K = REGISTRY.getEncoding(EncodingType.CL100K_BASE);

  private static final List<String> TEXTS =
      List.of(
          "Hello, world!",
          "",
          "def f(x):\n    return x ** 2  # squares\n",
          "Ünïcödé — 日本語のテキスト and emoji 🎉🚀",
          "{\"path\": \"/usr/lib/x.so\", \"lines\": [1, 2, 3]}",
          "a special marker <|endoftext|> inside user text",
          "   leading and trailing spaces   \n\n\t");

  @Test
  void countText_matchesJtokkitForPlainText() {
    for (String t : TEXTS) {
      assertThat(TokenCounters.o200k().countText(t)).as(t).isEqualTo(O200K.countTokensOrdinary(t));
      assertThat(TokenCounters.cl100k().countText(t))
          .as(t)
          .isEqualTo(CL100K.countTokensOrdinary(t));
    }
  }

  @Test
  void countText_matchesJtokkitOnRandomText() {
    long seed = 20240601L;
    Random rnd = new Random(seed);
    for (int i = 0; i < 200; i++) {
      StringBuilder sb = new StringBuilder();
      int len = rnd.nextInt(300);
      for (int j = 0; j < len; j++) {
        sb.appendCodePoint(rnd.nextInt(10) < 8 ? 32 + rnd.nextInt(95) : 0x80 + rnd.nextInt(0x3000));
      }
      String t = sb.toString();
      assertThat(TokenCounters.o200k().countText(t))
          .as("seed %d text %d", seed, i)
          .isEqualTo(O200K.countTokensOrdinary(t));
    }
  }

  @Test
  void forModel_picksFamilyCounters() {
    assertThat(TokenCounters.forModel("openai/gpt-4o").name()).isEqualTo("o200k_base");
    assertThat(TokenCounters.forModel("gpt-4").name()).isEqualTo("cl100k_base");
    assertThat(TokenCounters.forModel("anthropic/claude-sonnet-4-5").name())
        .isEqualTo("estimate(3.000)");
    assertThat(TokenCounters.forModel("gpt-4o")).isSameAs(TokenCounters.o200k());
    assertThat(TokenCounters.forModel(null)).isSameAs(TokenCounters.estimate());
  }

  @Test
  void countMessage_openAi_addsThreePerMessagePlusRoleName() {
    Message m = Message.user("Hello there, how are you?");
    int expected = 3 + O200K.countTokensOrdinary("user") + O200K.countTokensOrdinary(m.content());
    assertThat(TokenCounters.o200k().countMessage(m)).isEqualTo(expected);
  }

  @Test
  void countMessages_addsReplyPrimingOnce() {
    List<Message> msgs = List.of(Message.system("You are terse."), Message.user("Hi"));
    TokenCounter c = TokenCounters.o200k();
    assertThat(c.countMessages(msgs))
        .isEqualTo(c.countMessage(msgs.get(0)) + c.countMessage(msgs.get(1)) + 3);
    assertThat(c.countMessages(List.of())).isZero();
  }

  @Test
  void countMessage_countsReasoningAndToolCalls() {
    Message m =
        Message.builder(Role.ASSISTANT)
            .content("Let me look.")
            .reasoning(List.of(new ReasoningBlock("thinking", "The user wants a file.", "sig")))
            .toolCalls(List.of(new ToolCall("call_1", "read_file", "{\"path\":\"a.txt\"}")))
            .build();
    int expected =
        3
            + O200K.countTokensOrdinary("assistant")
            + O200K.countTokensOrdinary("Let me look.")
            + O200K.countTokensOrdinary("The user wants a file.")
            + 3
            + O200K.countTokensOrdinary("read_file")
            + O200K.countTokensOrdinary("{\"path\":\"a.txt\"}");
    assertThat(TokenCounters.o200k().countMessage(m)).isEqualTo(expected);
  }

  @Test
  void countMessage_uiOnlyCountsZero_andIsLeftOutOfRequests() {
    Message ui = Message.builder(Role.SYSTEM).content("compacted 12 messages").uiOnly(true).build();
    TokenCounter c = TokenCounters.o200k();
    assertThat(c.countMessage(ui)).isZero();
    assertThat(c.countMessages(List.of(ui))).isZero();
    Message user = Message.user("hi");
    assertThat(c.countMessages(List.of(user, ui))).isEqualTo(c.countMessages(List.of(user)));
    assertThat(TokenCounters.estimate().countMessage(ui)).isZero();
  }

  @Test
  void estimate_dividesCodePointsByRatioRoundingUp_withEstimateOverhead() {
    TokenCounter est = TokenCounters.estimate(4.0);
    assertThat(est.countText("abcdefgh")).isEqualTo(2);
    assertThat(est.countText("abcdefghi")).isEqualTo(3);
    assertThat(est.countText("🎉🎉🎉🎉")).isEqualTo(1); // code points, not UTF-16 units
    assertThat(est.countMessage(Message.user("abcdefgh"))).isEqualTo(4 + 2);
    assertThat(est.name()).isEqualTo("estimate(4.000)");
    assertThat(est.family()).isEqualTo(TokenizerFamily.ESTIMATE);
  }

  @Test
  void estimate_rejectsNonPositiveOrNonFiniteRatio() {
    for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> TokenCounters.estimate(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(String.valueOf(bad));
    }
  }

  @Test
  void countToolDefinitions_countsNameDescriptionSchemaAndOverheads() {
    String schema =
        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
            + "\"required\":[\"path\"]}";
    TokenCounter c = TokenCounters.o200k();
    int one = c.countToolDefinition("read_file", "Read a file.", schema);
    assertThat(one)
        .isEqualTo(
            7
                + O200K.countTokensOrdinary("read_file:Read a file.")
                + O200K.countTokensOrdinary(schema));
    assertThat(c.countToolDefinition("noop", null, null))
        .isEqualTo(7 + O200K.countTokensOrdinary("noop:"));
    List<ToolSpec> tools =
        List.of(
            new ToolSpec("read_file", "Read a file.", schema), new ToolSpec("noop", null, null));
    assertThat(c.countToolDefinitions(tools))
        .isEqualTo(12 + one + c.countToolDefinition("noop", null, null));
    assertThat(c.countToolDefinitions(List.of())).isZero();
  }

  @Test
  void cache_recountAfterOneMoreMessage_encodesOnlyTheNewMessage() {
    List<String> encoded = new ArrayList<>();
    TokenCounter counter = countingCounter(encoded);
    List<Message> log = new ArrayList<>();
    Random rnd = new Random(7);
    for (int i = 0; i < 2000; i++) {
      log.add(randomMessage(rnd, i));
    }
    long first = counter.countMessages(log);
    assertThat(encoded).isNotEmpty();

    encoded.clear();
    Message added = Message.user("one more question " + UUID.randomUUID());
    log.add(added);
    long second = counter.countMessages(log);

    assertThat(encoded).containsExactly(added.content());
    assertThat(second - first).isEqualTo(counter.countMessage(added));
  }

  @Test
  void cache_equalContentUnderAnotherId_isNotEncodedAgain() {
    List<String> encoded = new ArrayList<>();
    TokenCounter counter = countingCounter(encoded);
    String text = "a tool output that is re-read from disk " + UUID.randomUUID();
    Message a = Message.builder(Role.TOOL).toolCallId("c1").content(text).build();
    int first = counter.countMessage(a);
    encoded.clear();
    Message b = Message.builder(Role.TOOL).toolCallId("c1").content(text).build();
    assertThat(b.id()).isNotEqualTo(a.id());
    assertThat(counter.countMessage(b)).isEqualTo(first);
    assertThat(encoded).isEmpty();
  }

  @Test
  void cache_keyIncludesCounterName() {
    String text = "same text, two counters " + UUID.randomUUID();
    AtomicInteger calls = new AtomicInteger();
    TokenCounter one =
        TokenCounters.custom(
            "one-" + UUID.randomUUID(),
            TokenizerFamily.ESTIMATE,
            t -> {
              calls.incrementAndGet();
              return 1;
            },
            MessageOverhead.NONE);
    TokenCounter two =
        TokenCounters.custom(
            "two-" + UUID.randomUUID(), TokenizerFamily.ESTIMATE, t -> 5, MessageOverhead.NONE);
    assertThat(one.countMessage(Message.user(text))).isEqualTo(1);
    assertThat(two.countMessage(Message.user(text))).isEqualTo(5);
  }

  @Test
  void custom_requiresAName() {
    assertThatThrownBy(
            () -> TokenCounters.custom(" ", TokenizerFamily.ESTIMATE, t -> 1, MessageOverhead.NONE))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sharedCache_isBoundedLru() {
    TokenCountCache cache = new TokenCountCache(3);
    for (int i = 0; i < 5; i++) {
      cache.put(new TokenCountCache.Key("c", i, i), i);
    }
    assertThat(cache.size()).isEqualTo(3);
    assertThat(cache.get(new TokenCountCache.Key("c", 0, 0))).isNull();
    assertThat(cache.get(new TokenCountCache.Key("c", 4, 4))).isEqualTo(4);
  }

  @Test
  void aSharedCacheOfCapacityZero_keepsNothing_andTheCountsStayTheSame() throws Exception {
    TokenCountCache off = new TokenCountCache(0);
    assertThat(off.enabled()).isFalse();
    off.put(new TokenCountCache.Key("c", 1, 1), 1);
    assertThat(off.get(new TokenCountCache.Key("c", 1, 1))).isNull();

    List<String> tokenized = new ArrayList<>();
    BpeTokenizer bpe = BpeTokenizer.of(BpeTokenizer.Encoding.O200K_BASE);
    TokenCounter unhashed =
        new CachingTokenCounter(
            "o200k_base-unhashed",
            TokenizerFamily.O200K_BASE,
            text -> {
              tokenized.add(text);
              return bpe.count(text);
            },
            MessageOverhead.OPENAI,
            off);
    List<Message> messages = new ArrayList<>();
    for (String line :
        java.nio.file.Files.readAllLines(
            java.nio.file.Path.of("../examples/agent-session.jsonl"))) {
      messages.add(Message.builder(Role.USER).content(line).build());
    }
    int[] expected = TokenCounters.o200k().countEach(messages);
    assertThat(unhashed.countEach(messages)).isEqualTo(expected);
    // The same content under another id: without the shared level it is tokenized again.
    Message copy = messages.get(0).toBuilder().id("another-id").build();
    tokenized.clear();
    assertThat(unhashed.countMessage(copy)).isEqualTo(expected[0]);
    assertThat(tokenized).containsExactly(copy.content());
    assertThat(off.size()).isZero();
  }

  @Test
  void countText_shortTextsAreTokenizedOnceLongOnesEveryTime() {
    List<String> encoded = new ArrayList<>();
    TokenCounter counter = countingCounter(encoded);
    String line = "[INFO] Running com.acme.InvoiceServiceTest ... ok\n";
    String long1 = line.repeat(10); // > CachingTokenCounter.SHORT_TEXT_CHARS
    assertThat(long1.length()).isGreaterThan(CachingTokenCounter.SHORT_TEXT_CHARS);
    for (int i = 0; i < 3; i++) {
      assertThat(counter.countText(line)).isEqualTo(O200K.countTokensOrdinary(line));
      assertThat(counter.countText(long1)).isEqualTo(O200K.countTokensOrdinary(long1));
    }
    assertThat(encoded.stream().filter(line::equals)).hasSize(1);
    assertThat(encoded.stream().filter(long1::equals)).hasSize(3);
  }

  @Test
  void countText_shortTextCacheStaysBoundedAndCorrect() {
    List<String> encoded = new ArrayList<>();
    TokenCounter counter = countingCounter(encoded);
    int n = CachingTokenCounter.SHORT_TEXT_ENTRIES + 10;
    for (int i = 0; i < n; i++) {
      String t = "line " + i;
      assertThat(counter.countText(t)).isEqualTo(O200K.countTokensOrdinary(t));
    }
    // emptied when full: the first lines are tokenized again, and counted right
    encoded.clear();
    assertThat(counter.countText("line 0")).isEqualTo(O200K.countTokensOrdinary("line 0"));
    assertThat(encoded).containsExactly("line 0");
  }

  @Test
  void countEach_onManyUncountedMessagesMatchesCountingOneByOne() {
    Random rnd = new Random(77);
    List<Message> log = new ArrayList<>();
    long chars = 0;
    for (int i = 0; chars < 2 * CachingTokenCounter.PARALLEL_CHARS; i++) {
      StringBuilder sb = new StringBuilder();
      int lines = 20 + rnd.nextInt(200);
      for (int l = 0; l < lines; l++) {
        sb.append("out ")
            .append(i)
            .append(' ')
            .append(Long.toHexString(rnd.nextLong()))
            .append('\n');
      }
      Message m =
          i % 3 == 0
              ? Message.toolResult("call_" + i, sb.toString())
              : Message.builder(i % 3 == 1 ? Role.USER : Role.ASSISTANT)
                  .content(sb.toString())
                  .build();
      log.add(m);
      chars += m.content().length();
    }
    log.add(Message.builder(Role.USER).content("status").uiOnly(true).build());
    List<String> encoded = new ArrayList<>();
    TokenCounter counter = countingCounter(encoded);
    encoded.clear(); // the role names, tokenized when the counter is made
    int[] each = counter.countEach(log); // parallel: more than enough text
    TokenCounter oneByOne = countingCounter(new ArrayList<>());
    for (int i = 0; i < log.size(); i++) {
      assertThat(each[i]).as("message %d", i).isEqualTo(oneByOne.countMessage(log.get(i)));
    }
    assertThat(each[log.size() - 1]).isZero();
    assertThat(encoded).hasSize(log.size() - 1); // each counted message tokenized exactly once
  }

  @Test
  void countMessageReusingLines_tokenizesOnlyTheLinesNotCountedBefore_andCountsExactly() {
    List<String> encoded = new ArrayList<>();
    BpeTokenizer bpe = BpeTokenizer.of(BpeTokenizer.Encoding.O200K_BASE);
    TokenCounter counter =
        new CachingTokenCounter(
            "o200k-lines-" + UUID.randomUUID(),
            TokenizerFamily.O200K_BASE,
            t -> {
              encoded.add(t);
              return bpe.count(t);
            },
            MessageOverhead.OPENAI,
            new TokenCountCache(100),
            O200kSplitter::breaksCleanlyAt);
    // A head and a tail counted line by line, as a truncation measures them; the head has a blank
    // line and a line that starts with a slash, where the split joins a line to the one before.
    String head = "Ran command: `ls /srv`\nfirst.\n\n  indented\nend.\n/srv/data/a.txt\n";
    String tail = "last line 1\nlast line 2\n";
    for (String part : (head + tail).split("(?<=\n)")) {
      counter.countText(part);
    }
    String marker = "[... 120 tokens truncated (lines 7-40 of 42); saved#1 ...]\n";
    Message m = Message.toolResult("call_1", head + marker + tail);
    encoded.clear();
    int count = counter.countMessageReusingLines(m);
    assertThat(count)
        .isEqualTo(3 + O200K.countTokensOrdinary("tool") + O200K.countTokensOrdinary(m.content()));
    // Only what no clean break separates from new text: the blank line with the line before it,
    // the slash line with the line before it, and the marker.
    assertThat(encoded).containsExactly("first.\n\n", "end.\n/srv/data/a.txt\n", marker);
    // remembered for the message, as countMessage remembers it
    encoded.clear();
    assertThat(counter.countMessage(m)).isEqualTo(count);
    assertThat(encoded).isEmpty();
  }

  @Test
  void countMessageReusingLines_equalsCountMessage_forEveryCounter() {
    Random rnd = new Random(5);
    String[] lines = {"\n", "/x\n", "  \n", "word.\n", "\u2028\n", "12 34\n", "日本\n", "it's\n"};
    for (int i = 0; i < 300; i++) {
      StringBuilder sb = new StringBuilder();
      for (int k = rnd.nextInt(30); k > 0; k--) {
        String l = lines[rnd.nextInt(lines.length)];
        sb.append(l);
        TokenCounters.o200k().countText(l);
      }
      Message m = Message.toolResult("call_" + i, sb.toString());
      int expected = 3 + O200K.countTokensOrdinary("tool") + O200K.countTokensOrdinary(m.content());
      assertThat(TokenCounters.o200k().countMessageReusingLines(m))
          .as("text %d", i)
          .isEqualTo(expected);
      assertThat(TokenCounters.cl100k().countMessageReusingLines(m))
          .isEqualTo(TokenCounters.cl100k().countMessage(m));
      assertThat(TokenCounters.estimate().countMessageReusingLines(m))
          .isEqualTo(TokenCounters.estimate().countMessage(m));
    }
    Message hidden = Message.builder(Role.TOOL).toolCallId("c").content("x").uiOnly(true).build();
    assertThat(TokenCounters.o200k().countMessageReusingLines(hidden)).isZero();
  }

  /** An o200k counter with a unique name that records every text it encodes. */
  static TokenCounter countingCounter(List<String> encoded) {
    return TokenCounters.custom(
        "o200k-counting-" + UUID.randomUUID(),
        TokenizerFamily.O200K_BASE,
        t -> {
          synchronized (encoded) {
            encoded.add(t);
          }
          return O200K.countTokensOrdinary(t);
        },
        MessageOverhead.OPENAI);
  }

  static Message randomMessage(Random rnd, int i) {
    Role role = Role.values()[rnd.nextInt(4)];
    String content = "message " + i + " " + Long.toHexString(rnd.nextLong()) + " lorem ipsum";
    if (role == Role.TOOL) {
      return Message.toolResult("call_" + i, content);
    }
    return Message.builder(role).content(content).build();
  }
}
