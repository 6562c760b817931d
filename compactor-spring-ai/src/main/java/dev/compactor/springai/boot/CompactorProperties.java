package dev.compactor.springai.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code compactor.*} settings of the auto-configuration.
 *
 * <ul>
 *   <li>{@code compactor.model}: the {@code provider/model} whose window and tokenizer the budget
 *       is for (default {@code openai/gpt-4o});
 *   <li>{@code compactor.budget}: a fraction of the window ({@code 0.5}) or tokens ({@code 60000});
 *       default: the model's default budget;
 *   <li>{@code compactor.strategy}: {@code auto} (the default policy) or a strategy name;
 *   <li>{@code compactor.store}: where conversations are kept — a database URL ({@code
 *       sqlite:/var/lib/app/memory.db}, {@code postgresql://user@host/db?currentSchema=s}, {@code
 *       jdbc:postgresql://…}) or a directory of conversation directories; default: in memory;
 *   <li>{@code compactor.reminder}: whether the 90 % reminder is sent (default false);
 *   <li>{@code compactor.summary-model}: the bean name of a Spring AI {@code ChatModel} that writes
 *       checkpoints; default: the offline extractive summarizer;
 *   <li>{@code compactor.summary-model-name}: that model's {@code provider/model} name, for its
 *       window and reports (default: {@code compactor.model}).
 * </ul>
 */
@ConfigurationProperties(prefix = "compactor")
public class CompactorProperties {
  private String model = "openai/gpt-4o";
  private String budget;
  private String strategy = "auto";
  private String store;
  private boolean reminder;
  private String summaryModel;
  private String summaryModelName;

  public String getModel() {
    return model;
  }

  public void setModel(String model) {
    this.model = model;
  }

  public String getBudget() {
    return budget;
  }

  public void setBudget(String budget) {
    this.budget = budget;
  }

  public String getStrategy() {
    return strategy;
  }

  public void setStrategy(String strategy) {
    this.strategy = strategy;
  }

  public String getStore() {
    return store;
  }

  public void setStore(String store) {
    this.store = store;
  }

  public boolean isReminder() {
    return reminder;
  }

  public void setReminder(boolean reminder) {
    this.reminder = reminder;
  }

  public String getSummaryModel() {
    return summaryModel;
  }

  public void setSummaryModel(String summaryModel) {
    this.summaryModel = summaryModel;
  }

  public String getSummaryModelName() {
    return summaryModelName;
  }

  public void setSummaryModelName(String summaryModelName) {
    this.summaryModelName = summaryModelName;
  }
}
