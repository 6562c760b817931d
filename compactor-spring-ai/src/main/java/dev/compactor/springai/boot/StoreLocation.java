package dev.compactor.springai.boot;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * What {@code compactor.store} names: a database URL ({@code sqlite:PATH}, {@code
 * jdbc:sqlite:PATH}, {@code postgresql://…}, {@code postgres://…}, {@code jdbc:postgresql://…}) or,
 * anything else, a directory of conversation directories.
 */
final class StoreLocation {
  private StoreLocation() {}

  static boolean isDatabase(String store) {
    if (store == null) {
      return false;
    }
    String s = store.strip();
    return s.startsWith("sqlite:")
        || s.startsWith("jdbc:sqlite:")
        || s.startsWith("postgresql://")
        || s.startsWith("postgres://")
        || s.startsWith("jdbc:postgresql:");
  }

  /** Matches when {@code compactor.store} is a database URL. */
  static final class IsDatabase implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return isDatabase(context.getEnvironment().getProperty("compactor.store"));
    }
  }
}
