package dev.compactor.testkit;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.sample.ConversationGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The contract has teeth: each broken provider below fails it with a message naming the rule. */
class ContextProviderContractSelfTest {

  private static final List<Message> SESSION =
      ConversationGenerator.generate(11, ConversationGenerator.Options.stress(30));
  private static final CompressionConfig CONFIG = CompressionConfig.builder().limit(1_000).build();

  /** Runs the contract's checks against one provider. */
  private static final class Harness extends ContextProviderContract {
    private final ContextProvider provider;

    Harness(ContextProvider provider) {
      this.provider = provider;
    }

    @Override
    protected ContextProvider provider() {
      return provider;
    }

    void check(List<Message> messages) {
      assertContract(messages, CONFIG);
    }
  }

  private static ContextProvider broken(
      BiFunction<List<Message>, CompressionConfig, CompactionResult> compress) {
    return new ContextProvider() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
        return true;
      }

      @Override
      public CompactionResult compress(List<Message> messages, CompressionConfig config) {
        return compress.apply(messages, config);
      }
    };
  }

  /**
   * A provider that returns its input with the first tool result replaced by {@code replace} of it,
   * declaring {@code provenance}.
   */
  private static ContextProvider replacingTheFirstToolResult(
      UnaryOperator<Message> replace, Map<MessageId, List<MessageId>> provenance) {
    return editing(
        provenance,
        out -> {
          int i = firstIndex(out, Role.TOOL);
          out.set(i, replace.apply(out.get(i)));
        });
  }

  /** A provider that returns a copy of its input changed by {@code edit}, declaring provenance. */
  private static ContextProvider editing(
      Map<MessageId, List<MessageId>> provenance, Consumer<List<Message>> edit) {
    return broken(
        (m, c) -> {
          List<Message> out = new ArrayList<>(m);
          edit.accept(out);
          return CompactionResult.of(m, out, List.of(), provenance);
        });
  }

  private static int firstIndex(List<Message> messages, Role role) {
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).role() == role) {
        return i;
      }
    }
    throw new AssertionError("no " + role);
  }

  private static void assertFails(ContextProvider p, String rule) {
    assertThatThrownBy(() -> new Harness(p).check(SESSION))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(rule);
  }

  @Test
  void aCorrectProvider_passes() {
    assertThatCode(() -> new Harness(new TruncatingProvider()).check(SESSION))
        .doesNotThrowAnyException();
  }

  @Test
  void modifyingTheInput_fails() {
    assertFails(
        broken(
            (m, c) -> {
              m.remove(m.size() - 1);
              return CompactionResult.unchanged(m);
            }),
        "compress modified its input");
  }

  @Test
  void changingContentUnderTheSameId_fails() {
    assertFails(
        replacingTheFirstToolResult(t -> t.withContent("short"), Map.of()),
        "keeps a source id, so it must be that source message unchanged");
  }

  @Test
  void aNewIdWithoutProvenance_fails() {
    assertFails(
        replacingTheFirstToolResult(
            t -> t.toBuilder().id("fresh").content("short").build(), Map.of()),
        "must have a provenance entry");
  }

  @Test
  void droppingAToolResult_butKeepingItsCall_fails() {
    assertFails(
        editing(Map.of(), out -> out.remove(firstIndex(out, Role.TOOL))),
        "violates view invariants");
  }

  @Test
  void aWrongSourceDigest_fails() {
    assertFails(
        broken((m, c) -> new CompactionResult(m, "0".repeat(64), m.size() - 1, List.of(), null)),
        "sourceDigest");
  }

  @Test
  void coveredThroughPastTheEnd_fails() {
    assertFails(
        broken(
            (m, c) ->
                new CompactionResult(
                    m, CompactionResult.unchanged(m).sourceDigest(), m.size(), List.of(), null)),
        "coveredThrough");
  }

  @Test
  void reorderingMessages_fails() {
    assertFails(editing(Map.of(), out -> out.add(1, out.remove(0))), "out of source order");
  }

  @Test
  void rewritingReasoning_fails() {
    assertFails(
        broken(
            (m, c) -> {
              List<Message> out = new ArrayList<>(m);
              for (int i = 0; i < m.size(); i++) {
                Message s = m.get(i);
                if (!s.reasoning().isEmpty()) {
                  Message r =
                      s.toBuilder()
                          .id(s.id().value() + "~r")
                          .reasoning(List.of(new ReasoningBlock("thinking", "shorter", null)))
                          .build();
                  out.set(i, r);
                  return CompactionResult.of(m, out, List.of(), Map.of(r.id(), List.of(s.id())));
                }
              }
              throw new AssertionError("session has no reasoning");
            }),
        "reasoning blocks");
  }

  @Test
  void droppingAPinnedMessage_fails() {
    List<Message> pinned = new ArrayList<>(SESSION);
    int u = firstIndex(pinned, Role.USER);
    pinned.set(u, pinned.get(u).toBuilder().pinned(true).build());
    ContextProvider p =
        broken(
            (m, c) -> {
              List<Message> out = new ArrayList<>(m);
              Message gone = out.remove(u);
              Message stub = Message.builder(Role.USER).id("stub").content("[dropped]").build();
              out.add(u, stub);
              return CompactionResult.of(m, out, List.of(), Map.of(stub.id(), List.of(gone.id())));
            });
    assertThatThrownBy(() -> new Harness(p).check(pinned))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("pinned message");
  }

  @Test
  void provenanceNamingAnUnknownMessage_fails() {
    assertFails(
        replacingTheFirstToolResult(
            t -> t.toBuilder().id("x~1").content("short").build(),
            Map.of(MessageId.of("x~1"), List.of(MessageId.of("ghost")))),
        "ghost");
  }

  @Test
  void throwing_failsNamingTheException() {
    assertFails(
        broken(
            (m, c) -> {
              throw new IllegalStateException("boom");
            }),
        "boom");
  }
}
