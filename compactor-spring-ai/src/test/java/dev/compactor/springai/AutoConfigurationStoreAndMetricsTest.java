package dev.compactor.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import dev.compactor.springai.boot.CompactorAutoConfiguration;
import dev.compactor.springai.boot.CompactorMetrics;
import dev.compactor.testkit.model.FakeModelServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The starter's auto-configuration with {@code compactor.store} a database URL (the memory and the
 * repository share the store), with and without Micrometer, and with a summary model bean.
 */
class AutoConfigurationStoreAndMetricsTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(CompactorAutoConfiguration.class))
          .withPropertyValues(
              "compactor.model=openai/gpt-4o-mini",
              "compactor.budget=2000",
              "compactor.strategy=auto");

  /** Tool turns enough to compact at a 2,000-token budget. */
  private static void agentTurns(Compactor compactor, int turns) {
    Compactor.Session s = compactor.session();
    for (int i = 0; i < turns; i++) {
      s.append(Message.user("look up k" + i));
      s.append(Message.assistant("", List.of(new ToolCall("c" + i, "lookup", "{}"))));
      s.append(Message.toolResult("c" + i, "row of values; ".repeat(100)));
      s.append(Message.assistant("done"));
      s.afterTurn();
    }
  }

  @Test
  void aDatabaseUrlGivesOneStoreToTheMemoryAndTheRepository(@TempDir Path dir) {
    String url = "sqlite:" + dir.resolve("memory.db");
    runner
        .withPropertyValues("compactor.store=" + url)
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(ConversationStore.class);
              assertThat(ctx.getBean(ChatMemoryRepository.class))
                  .isInstanceOf(CompactorChatMemoryRepository.class);
              ctx.getBean(ChatMemory.class).add("c-1", List.of(new UserMessage("hello")));
              assertThat(ctx.getBean(ChatMemoryRepository.class).findConversationIds())
                  .containsExactly("c-1");
            });
    // the context closed the store; a new one (a restarted application) finds the conversation
    runner
        .withPropertyValues("compactor.store=" + url)
        .run(
            ctx ->
                assertThat(ctx.getBean(ChatMemory.class).get("c-1"))
                    .extracting(org.springframework.ai.chat.messages.Message::getText)
                    .containsExactly("hello"));
  }

  @Test
  void aDirectoryStoreHasNoDatabase(@TempDir Path dir) {
    runner
        .withPropertyValues("compactor.store=" + dir)
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(ConversationStore.class);
              assertThat(ctx).doesNotHaveBean(ChatMemoryRepository.class);
            });
  }

  @Test
  void aBadStoreUrlFailsStartupNamingIt() {
    AutoConfigurationTest.assertStartupFailsNaming(
        runner, "compactor.store=postgresql://nobody@/db", "no host");
  }

  @Test
  void withAMeterRegistryCompactionsAreCountedByKindWithTokensBeforeAndAfter() {
    runner
        .withUserConfiguration(Registry.class)
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(CompactorMetrics.class);
              agentTurns(ctx.getBean(Compactor.class), 20);
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              double compactions =
                  registry.find(CompactorMetrics.COMPACTIONS).counters().stream()
                      .mapToDouble(c -> c.count())
                      .sum();
              assertThat(compactions).isGreaterThan(0);
              var counter = registry.find(CompactorMetrics.COMPACTIONS).counter();
              assertThat(counter.getId().getTag("strategy")).isIn("mask", "trim", "summarize");
              assertThat(counter.getId().getTag("trigger")).isEqualTo("auto");
              var before = registry.find(CompactorMetrics.TOKENS_BEFORE).summaries();
              var after = registry.find(CompactorMetrics.TOKENS_AFTER).summaries();
              double beforeTotal = before.stream().mapToDouble(x -> x.totalAmount()).sum();
              double afterTotal = after.stream().mapToDouble(x -> x.totalAmount()).sum();
              assertThat(before.stream().mapToLong(x -> x.count()).sum())
                  .isEqualTo((long) compactions);
              assertThat(afterTotal).isLessThan(beforeTotal);
              assertThat(
                      registry.find(CompactorMetrics.TOKENS_SAVED).counters().stream()
                          .mapToDouble(c -> c.count())
                          .sum())
                  .isEqualTo(beforeTotal - afterTotal);
            });
  }

  @Test
  void withoutARegistryThereAreNoMetrics() {
    runner.run(
        ctx -> {
          assertThat(ctx).doesNotHaveBean(CompactorMetrics.class);
          agentTurns(ctx.getBean(Compactor.class), 20); // compacts without a listener
        });
  }

  @Test
  void withoutMicrometerOnTheClassPathItStartsAndCompacts() {
    runner
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).doesNotHaveBean(CompactorMetrics.class);
              agentTurns(ctx.getBean(Compactor.class), 20);
            });
  }

  @Test
  void aSummaryModelBeanWritesTheCheckpoints() {
    try (FakeModelServer fake =
        FakeModelServer.builder()
            .replyWith(
                r ->
                    dev.compactor.testkit.model.Reply.text(
                        "## Objective\nlook things up\n## Current state\nall keys looked up"))
            .start()) {
      runner
          .withBean(
              "cheapModel",
              OpenAiChatModel.class,
              () ->
                  OpenAiChatModel.builder()
                      .openAiApi(OpenAiApi.builder().baseUrl(fake.url()).apiKey("sk-test").build())
                      .defaultOptions(OpenAiChatOptions.builder().model("gpt-4o-mini").build())
                      .build())
          .withPropertyValues(
              "compactor.summary-model=cheapModel",
              "compactor.summary-model-name=openai/gpt-4o-mini",
              "compactor.strategy=summarize")
          .run(
              ctx -> {
                Compactor.Session s = ctx.getBean(Compactor.class).session();
                for (int i = 0; i < 10; i++) {
                  s.append(Message.user("question " + i + ": " + "words ".repeat(150)));
                  s.append(Message.assistant("answer " + i + ": " + "words ".repeat(150)));
                }
                s.compact();
                assertThat(fake.requests()).isNotEmpty();
                assertThat(s.messages()).anyMatch(m -> m.content().contains("all keys looked up"));
              });
    }
  }

  @Test
  void aSummaryModelThatIsNoBeanFailsStartupNamingIt() {
    AutoConfigurationTest.assertStartupFailsNaming(
        runner, "compactor.summary-model=missingModel", "missingModel");
  }

  @Configuration
  static class Registry {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }
}
