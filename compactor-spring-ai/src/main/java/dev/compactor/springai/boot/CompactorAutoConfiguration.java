package dev.compactor.springai.boot;

import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.Compactor;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.springai.CompactingChatMemory;
import dev.compactor.springai.CompactingMemoryAdvisor;
import dev.compactor.springai.CompactionAdvisor;
import dev.compactor.springai.CompactorChatMemoryRepository;
import dev.compactor.springai.SpringAiSummarizer;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Boot auto-configuration: a {@link Compactor} from the {@code compactor.*} properties, a
 * {@link CompactingChatMemory} as the application's {@code ChatMemory} (unless it defines one), the
 * {@link CompactingMemoryAdvisor} over it and a {@link CompactionAdvisor}, for {@code
 * ChatClient.builder(model).defaultAdvisors(...)}. With {@code compactor.store} a database URL, a
 * {@link ConversationStore} that the memory and a {@link CompactorChatMemoryRepository} share. With
 * a Micrometer {@link MeterRegistry} bean, {@link CompactorMetrics}.
 *
 * <p>It runs before Spring AI's chat memory auto-configuration (so its memory and repository win
 * over Spring AI's defaults) and after Spring Boot's meter registries.
 */
@AutoConfiguration(
    beforeName =
        "org.springframework.ai.model.chat.memory.autoconfigure.ChatMemoryAutoConfiguration",
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass(Compactor.class)
@EnableConfigurationProperties(CompactorProperties.class)
public class CompactorAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public Compactor compactor(
      CompactorProperties p, ObjectProvider<CompactionListener> listeners, BeanFactory beans) {
    Compactor.Builder b = Compactor.forModel(p.getModel()).reminder(p.isReminder());
    if (p.getBudget() != null && !p.getBudget().isBlank()) {
      b.budget(p.getBudget());
    }
    if (p.getStrategy() != null && !p.getStrategy().isBlank()) {
      b.strategy(p.getStrategy());
    }
    if (p.getSummaryModel() != null && !p.getSummaryModel().isBlank()) {
      org.springframework.ai.chat.model.ChatModel model;
      try {
        model =
            beans.getBean(p.getSummaryModel(), org.springframework.ai.chat.model.ChatModel.class);
      } catch (NoSuchBeanDefinitionException e) {
        throw new IllegalArgumentException(
            "compactor.summary-model \""
                + p.getSummaryModel()
                + "\" names no Spring AI ChatModel bean: "
                + e.getMessage(),
            e);
      }
      String name =
          p.getSummaryModelName() == null || p.getSummaryModelName().isBlank()
              ? p.getModel()
              : p.getSummaryModelName();
      b.summarizer(SpringAiSummarizer.of(model, name));
    }
    List<CompactionListener> all = listeners.orderedStream().toList();
    if (!all.isEmpty()) {
      b.listener(
          (AppliedCompaction r) -> {
            for (CompactionListener l : all) {
              l.compacted(r);
            }
          });
    }
    return b.build();
  }

  /** The conversation database {@code compactor.store} names, when it is a database URL. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @Conditional(StoreLocation.IsDatabase.class)
  public ConversationStore compactorConversationStore(CompactorProperties p) {
    return ConversationStore.open(p.getStore());
  }

  /** Spring AI's repository interface over the conversation database, tool messages included. */
  @Bean
  @ConditionalOnBean(ConversationStore.class)
  @ConditionalOnMissingBean(ChatMemoryRepository.class)
  public CompactorChatMemoryRepository compactorChatMemoryRepository(ConversationStore store) {
    return new CompactorChatMemoryRepository(store);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(org.springframework.ai.chat.memory.ChatMemory.class)
  public CompactingChatMemory compactingChatMemory(
      Compactor compactor, CompactorProperties p, ObjectProvider<ConversationStore> store) {
    CompactingChatMemory.Builder b = CompactingChatMemory.builder().compactor(compactor);
    ConversationStore db = store.getIfAvailable();
    if (db != null) {
      b.store(db);
    } else if (p.getStore() != null && !p.getStore().isBlank()) {
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

  /** Metrics, when Micrometer is on the class path and the application has a registry. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Metrics {
    @Bean
    @ConditionalOnBean(MeterRegistry.class)
    @ConditionalOnMissingBean
    CompactorMetrics compactorMetrics(MeterRegistry registry) {
      return new CompactorMetrics(registry);
    }
  }
}
