package dev.compactor.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.Compactor;
import dev.compactor.springai.boot.CompactorAutoConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class AutoConfigurationTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(CompactorAutoConfiguration.class));

  @Test
  void propertiesMakeTheCompactorTheMemoryAndTheAdvisors(@TempDir Path dir) {
    runner
        .withPropertyValues(
            "compactor.model=anthropic/claude-sonnet-4-5",
            "compactor.budget=50000",
            "compactor.store=" + dir)
        .run(
            ctx -> {
              Compactor c = ctx.getBean(Compactor.class);
              assertThat(c.model()).isEqualTo("anthropic/claude-sonnet-4-5");
              assertThat(c.budget().tokens()).isEqualTo(50_000);
              ChatMemory memory = ctx.getBean(ChatMemory.class);
              assertThat(memory).isInstanceOf(CompactingChatMemory.class);
              memory.add("c-1", List.of(new UserMessage("hello")));
              assertThat(Files.isDirectory(dir.resolve("c-1"))).isTrue();
              assertThat(ctx).hasSingleBean(CompactingMemoryAdvisor.class);
              assertThat(ctx).hasSingleBean(CompactionAdvisor.class);
            });
  }

  @Test
  void anApplicationsOwnMemoryWins() {
    runner
        .withUserConfiguration(OwnMemory.class)
        .run(
            ctx -> {
              assertThat(ctx.getBean(ChatMemory.class)).isInstanceOf(MessageWindowChatMemory.class);
              assertThat(ctx).doesNotHaveBean(CompactingMemoryAdvisor.class);
            });
  }

  @Test
  void aBadBudgetFailsStartupNamingIt() {
    AutoConfigurationTest.assertStartupFailsNaming(runner, "compactor.budget=1.5", "1.5");
  }

  /**
   * Starting with {@code property} ({@code name=value}) fails, and the root cause's message names
   * {@code named}.
   */
  static void assertStartupFailsNaming(
      ApplicationContextRunner runner, String property, String named) {
    runner
        .withPropertyValues(property)
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining(named);
            });
  }

  @Configuration
  static class OwnMemory {
    @Bean
    ChatMemory chatMemory() {
      return MessageWindowChatMemory.builder()
          .chatMemoryRepository(new InMemoryChatMemoryRepository())
          .build();
    }
  }
}
