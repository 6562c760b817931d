package dev.compactor.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.message.Message;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ProviderRegistryTest {

  /** A provider that never compresses; its name is configurable. */
  record Named(String name) implements ContextProvider {
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
    Named p = new Named("mine");
    ProviderRegistry r = ProviderRegistry.builder().register("mine", p).build();
    assertThat(r.get("mine")).isSameAs(p);
    assertThat(r.contains("mine")).isTrue();
  }

  @Test
  void get_unknownName_failsListingTheKnownNames() {
    ProviderRegistry r =
        ProviderRegistry.builder()
            .register("b-one", new Named("b-one"))
            .register("a-two", new Named("a-two"))
            .build();
    assertThatThrownBy(() -> r.get("nope"))
        .isInstanceOf(CompactorException.class)
        .hasMessage("unknown context provider \"nope\"; known providers: a-two, b-one");
  }

  @Test
  void get_onEmptyRegistry_saysNoneAreKnown() {
    assertThatThrownBy(() -> ProviderRegistry.builder().build().get("x"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("known providers: (none)");
  }

  @Test
  void register_duplicateName_failsNamingBothClasses_andKeepsTheFirst() {
    Named first = new Named("dup");
    ProviderRegistry.Builder b = ProviderRegistry.builder().register("dup", first);
    assertThatThrownBy(() -> b.register("dup", new MaskProvider()))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("duplicate context provider name \"dup\"")
        .hasMessageContaining(Named.class.getName())
        .hasMessageContaining(MaskProvider.class.getName());
    assertThat(b.build().get("dup")).isSameAs(first);
  }

  @Test
  void register_invalidName_fails() {
    ProviderRegistry.Builder b = ProviderRegistry.builder();
    assertThatThrownBy(() -> b.register(" ", new Named("x")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("invalid context provider name \" \"");
    assertThatThrownBy(() -> b.register("two words", new Named("x")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("\"two words\"");
    assertThatThrownBy(() -> b.register((String) null, new Named("x")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("name null");
  }

  @Test
  void register_nullProviderOrFactory_failsWithNullPointerException() {
    ProviderRegistry.Builder b = ProviderRegistry.builder();
    assertThatThrownBy(() -> b.register("x", (ContextProvider) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("provider");
    assertThatThrownBy(() -> b.register("x", (java.util.function.Supplier<ContextProvider>) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("provider factory");
    assertThat(b.build().list()).isEmpty();
  }

  @Test
  void default_isAnAliasOfTrim() {
    Named trim = new Named("trim");
    ProviderRegistry r = ProviderRegistry.builder().register("trim", trim).build();
    assertThat(r.get(ProviderRegistry.DEFAULT)).isSameAs(trim);
    assertThat(r.list()).containsExactly("default", "trim");
  }

  @Test
  void default_withoutTrim_failsSayingWhatItStandsFor_andIsNotListed() {
    ProviderRegistry r = ProviderRegistry.builder().register("mask", new MaskProvider()).build();
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
    MaskProvider mask = new MaskProvider();
    ProviderRegistry r =
        ProviderRegistry.builder().register("mask", mask).alias("default", "mask").build();
    assertThat(r.get("default")).isSameAs(mask);
  }

  @Test
  void alias_onProviderName_orToAnotherAlias_fails() {
    ProviderRegistry.Builder b = ProviderRegistry.builder().register("mask", new MaskProvider());
    assertThatThrownBy(() -> b.alias("mask", "trim"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("a provider is registered under that name");
    assertThatThrownBy(() -> b.alias("std", "default"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("is itself an alias");
  }

  @Test
  void register_underAnAliasName_fails() {
    assertThatThrownBy(() -> ProviderRegistry.builder().register("default", new Named("default")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("is taken by an alias of \"trim\"");
  }

  @Test
  void list_isSorted() {
    ProviderRegistry.Builder b = ProviderRegistry.builder();
    for (String n : List.of("zeta", "alpha", "Mid", "beta")) {
      b.register(n, new Named(n));
    }
    assertThat(b.build().list()).containsExactly("Mid", "alpha", "beta", "zeta");
  }

  @Test
  void registerFactory_isCalledOnceOnFirstGet() {
    AtomicInteger calls = new AtomicInteger();
    ProviderRegistry r =
        ProviderRegistry.builder()
            .register(
                "lazy",
                () -> {
                  calls.incrementAndGet();
                  return new Named("lazy");
                })
            .build();
    assertThat(calls).hasValue(0);
    assertThat(r.list()).containsExactly("lazy");
    ContextProvider first = r.get("lazy");
    assertThat(r.get("lazy")).isSameAs(first);
    assertThat(calls).hasValue(1);
  }

  @Test
  void registerFactory_thatFails_reportsIt_andIsRetried() {
    AtomicInteger calls = new AtomicInteger();
    ProviderRegistry r =
        ProviderRegistry.builder()
            .register(
                "flaky",
                () -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("not yet");
                  }
                  return new Named("flaky");
                })
            .build();
    assertThatThrownBy(() -> r.get("flaky"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("the factory of context provider \"flaky\" failed")
        .hasMessageContaining("not yet");
    assertThat(r.get("flaky").name()).isEqualTo("flaky");
  }

  @Test
  void registerFactory_returningNull_fails() {
    ProviderRegistry r = ProviderRegistry.builder().register("null", () -> null).build();
    assertThatThrownBy(() -> r.get("null"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("returned null");
  }

  @Test
  void discovery_findsMaskThroughServiceLoader() {
    ProviderRegistry r = new ProviderRegistry(getClass().getClassLoader());
    assertThat(r.list()).contains("mask");
    assertThat(r.get("mask")).isInstanceOf(MaskProvider.class);
    ProviderRegistry more =
        ProviderRegistry.builder()
            .discover(getClass().getClassLoader())
            .register("mine", new Named("mine"))
            .build();
    assertThat(more.list()).contains("mask", "mine", "trim");
  }

  @Test
  void global_isSharedAndDiscovers() {
    assertThat(ProviderRegistry.global()).isSameAs(ProviderRegistry.global());
    assertThat(ProviderRegistry.global().get("mask")).isInstanceOf(MaskProvider.class);
  }

  @Test
  void aBuiltRegistry_hasNoWayToRegister_andLaterBuilderChangesDoNotReachIt() {
    for (Method m : ProviderRegistry.class.getMethods()) {
      if (!Modifier.isStatic(m.getModifiers())) {
        assertThat(m.getName()).isNotIn("register", "alias", "add");
      }
    }
    ProviderRegistry.Builder b = ProviderRegistry.builder().register("one", new Named("one"));
    ProviderRegistry r = b.build();
    b.register("two", new Named("two"));
    assertThat(r.list()).containsExactly("one");
    assertThat(b.build().list()).containsExactly("one", "two");
  }
}
