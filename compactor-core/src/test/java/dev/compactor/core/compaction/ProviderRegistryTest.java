package dev.compactor.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ProviderRegistryTest {

  /** A provider that never compresses; its name is configurable. */
  static final class Named implements ContextProvider {
    private final String name;

    Named(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
      return false;
    }

    @Override
    public CompactionResult compress(List<Message> messages, CompressionConfig config) {
      return CompactionResult.unchanged(messages);
    }
  }

  @Test
  void get_returnsTheRegisteredInstance() {
    ProviderRegistry r = new ProviderRegistry();
    Named p = new Named("mine");
    r.register("mine", p);
    assertThat(r.get("mine")).isSameAs(p);
    assertThat(r.contains("mine")).isTrue();
  }

  @Test
  void get_unknownName_failsListingTheKnownNames() {
    ProviderRegistry r = new ProviderRegistry();
    r.register("b-one", new Named("b-one"));
    r.register("a-two", new Named("a-two"));
    assertThatThrownBy(() -> r.get("nope"))
        .isInstanceOf(CompactorException.class)
        .hasMessage("unknown context provider \"nope\"; known providers: a-two, b-one");
  }

  @Test
  void get_onEmptyRegistry_saysNoneAreKnown() {
    assertThatThrownBy(() -> new ProviderRegistry().get("x"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("known providers: (none)");
  }

  @Test
  void register_duplicateName_failsNamingBothClasses_andKeepsTheFirst() {
    ProviderRegistry r = new ProviderRegistry();
    Named first = new Named("dup");
    r.register("dup", first);
    assertThatThrownBy(() -> r.register("dup", new MaskProvider()))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("duplicate context provider name \"dup\"")
        .hasMessageContaining(Named.class.getName())
        .hasMessageContaining(MaskProvider.class.getName());
    assertThat(r.get("dup")).isSameAs(first);
  }

  @Test
  void register_invalidName_fails() {
    ProviderRegistry r = new ProviderRegistry();
    assertThatThrownBy(() -> r.register(" ", new Named("x")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("invalid context provider name \" \"");
    assertThatThrownBy(() -> r.register("two words", new Named("x")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("\"two words\"");
    assertThatThrownBy(() -> r.register((String) null, new Named("x")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("name null");
  }

  @Test
  void register_nullProviderOrFactory_failsWithNullPointerException() {
    ProviderRegistry r = new ProviderRegistry();
    assertThatThrownBy(() -> r.register("x", (ContextProvider) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("provider");
    assertThatThrownBy(() -> r.register("x", (java.util.function.Supplier<ContextProvider>) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("provider factory");
    assertThat(r.list()).isEmpty();
  }

  @Test
  void default_isAnAliasOfTrim() {
    ProviderRegistry r = new ProviderRegistry();
    Named trim = new Named("trim");
    r.register("trim", trim);
    assertThat(r.get(ProviderRegistry.DEFAULT)).isSameAs(trim);
    assertThat(r.list()).containsExactly("default", "trim");
  }

  @Test
  void default_withoutTrim_failsSayingWhatItStandsFor_andIsNotListed() {
    ProviderRegistry r = new ProviderRegistry();
    r.register("mask", new MaskProvider());
    assertThat(r.list()).containsExactly("mask");
    assertThat(r.contains("default")).isFalse();
    assertThatThrownBy(() -> r.get("default"))
        .isInstanceOf(CompactorException.class)
        .hasMessage(
            "context provider \"default\" is an alias of \"trim\", which is not registered;"
                + " known providers: mask");
  }

  @Test
  void alias_canRepointDefault() {
    ProviderRegistry r = new ProviderRegistry();
    MaskProvider mask = new MaskProvider();
    r.register("mask", mask);
    r.alias("default", "mask");
    assertThat(r.get("default")).isSameAs(mask);
  }

  @Test
  void alias_onProviderName_orToAnotherAlias_fails() {
    ProviderRegistry r = new ProviderRegistry();
    r.register("mask", new MaskProvider());
    assertThatThrownBy(() -> r.alias("mask", "trim"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("a provider is registered under that name");
    assertThatThrownBy(() -> r.alias("std", "default"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("is itself an alias");
  }

  @Test
  void register_underAnAliasName_fails() {
    ProviderRegistry r = new ProviderRegistry();
    assertThatThrownBy(() -> r.register("default", new Named("default")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("is taken by an alias of \"trim\"");
  }

  @Test
  void list_isSorted() {
    ProviderRegistry r = new ProviderRegistry();
    for (String n : List.of("zeta", "alpha", "Mid", "beta")) {
      r.register(n, new Named(n));
    }
    assertThat(r.list()).containsExactly("Mid", "alpha", "beta", "zeta");
  }

  @Test
  void registerFactory_isCalledOnceOnFirstGet() {
    ProviderRegistry r = new ProviderRegistry();
    AtomicInteger calls = new AtomicInteger();
    r.register(
        "lazy",
        () -> {
          calls.incrementAndGet();
          return new Named("lazy");
        });
    assertThat(calls).hasValue(0);
    assertThat(r.list()).containsExactly("lazy");
    ContextProvider first = r.get("lazy");
    assertThat(r.get("lazy")).isSameAs(first);
    assertThat(calls).hasValue(1);
  }

  @Test
  void registerFactory_thatFails_reportsIt_andIsRetried() {
    ProviderRegistry r = new ProviderRegistry();
    AtomicInteger calls = new AtomicInteger();
    r.register(
        "flaky",
        () -> {
          if (calls.incrementAndGet() == 1) {
            throw new IllegalStateException("not yet");
          }
          return new Named("flaky");
        });
    assertThatThrownBy(() -> r.get("flaky"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("the factory of context provider \"flaky\" failed")
        .hasMessageContaining("not yet");
    assertThat(r.get("flaky").name()).isEqualTo("flaky");
  }

  @Test
  void registerFactory_returningNull_fails() {
    ProviderRegistry r = new ProviderRegistry();
    r.register("null", () -> null);
    assertThatThrownBy(() -> r.get("null"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("returned null");
  }

  @Test
  void discovery_findsMaskThroughServiceLoader() {
    ProviderRegistry r = new ProviderRegistry(getClass().getClassLoader());
    assertThat(r.list()).contains("mask");
    assertThat(r.get("mask")).isInstanceOf(MaskProvider.class);
  }

  @Test
  void global_isSharedAndDiscovers() {
    assertThat(ProviderRegistry.global()).isSameAs(ProviderRegistry.global());
    assertThat(ProviderRegistry.global().get("mask")).isInstanceOf(MaskProvider.class);
  }

  @Test
  void concurrentRegistration_ofOneName_letsExactlyOneWin() throws Exception {
    ProviderRegistry r = new ProviderRegistry();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  try {
                    r.register("race", new Named("race"));
                    return true;
                  } catch (CompactorException e) {
                    return false;
                  }
                }));
      }
      start.countDown();
      int wins = 0;
      for (Future<Boolean> f : results) {
        wins += f.get(10, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(wins).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }
}
