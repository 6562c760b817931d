package dev.compactor.springai.boot;

import dev.compactor.core.Compactor;
import dev.compactor.springai.CompactingChatMemory;
import dev.compactor.springai.CompactingMemoryAdvisor;
import dev.compactor.springai.CompactionAdvisor;
import java.nio.file.Path;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot auto-configuration: a {@link Compactor} from the {@code compactor.*} properties, a
 * {@link CompactingChatMemory} as the application's {@code ChatMemory} (unless it defines one), the
 * {@link CompactingMemoryAdvisor} over it and a {@link CompactionAdvisor}, for {@code
 * ChatClient.builder(model).defaultAdvisors(...)}.
 */
@AutoConfiguration
@ConditionalOnClass(Compactor.class)
@EnableConfigurationProperties(CompactorProperties.class)
public class CompactorAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public Compactor compactor(CompactorProperties p) {
    Compactor.Builder b = Compactor.forModel(p.getModel()).reminder(p.isReminder());
    if (p.getBudget() != null && !p.getBudget().isBlank()) {
      b.budget(p.getBudget());
    }
    if (p.getStrategy() != null && !p.getStrategy().isBlank()) {
      b.strategy(p.getStrategy());
    }
    return b.build();
  }

  @Bean
  @ConditionalOnMissingBean(org.springframework.ai.chat.memory.ChatMemory.class)
  public CompactingChatMemory compactingChatMemory(Compactor compactor, CompactorProperties p) {
    CompactingChatMemory.Builder b = CompactingChatMemory.builder().compactor(compactor);
    if (p.getStore() != null && !p.getStore().isBlank()) {
      b.directory(Path.of(p.getStore()));
    }
    return b.build();
  }

  @Bean
  @ConditionalOnBean(CompactingChatMemory.class)
  @ConditionalOnMissingBean
  public CompactingMemoryAdvisor compactingMemoryAdvisor(CompactingChatMemory memory) {
    return CompactingMemoryAdvisor.of(memory);
  }

  @Bean
  @ConditionalOnMissingBean
  public CompactionAdvisor compactionAdvisor(Compactor compactor) {
    return CompactionAdvisor.of(compactor);
  }
}
