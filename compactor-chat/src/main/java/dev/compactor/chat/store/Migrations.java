package dev.compactor.chat.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * Applies the versioned schema migrations with Flyway: {@code V<n>__<what>.sql} scripts under
 * {@code dev/compactor/chat/store/migration/<dialect>/}, recorded in Flyway's {@code
 * flyway_schema_history} table. A migration once released is never edited; a schema change is a new
 * script in both dialects.
 */
final class Migrations {
  private Migrations() {}

  static final String LOCATION = "classpath:dev/compactor/chat/store/migration/";

  /**
   * Starts a pool for {@code hc} and runs {@code migrate} on it; the pool is closed again when
   * migrating fails.
   *
   * @param cannotOpen the start of the error when the pool cannot start, e.g. {@code cannot connect
   *     to the chat database <url>}; the cause's message follows it
   * @throws ChatStoreException when the pool cannot start
   */
  static HikariDataSource openMigrated(
      HikariConfig hc, String cannotOpen, Consumer<HikariDataSource> migrate) {
    HikariDataSource ds;
    try {
      ds = new HikariDataSource(hc);
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new ChatStoreException(cannotOpen + ": " + cause.getMessage(), e);
    }
    try {
      migrate.accept(ds);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
    return ds;
  }

  static void migrate(DataSource ds, String dialect, String schema, String what) {
    try {
      var config =
          Flyway.configure(Migrations.class.getClassLoader())
              .dataSource(ds)
              .locations(LOCATION + dialect)
              .failOnMissingLocations(true)
              // Log through SLF4J like HikariCP: the application's binding decides, none = silent.
              .loggers("slf4j");
      if (schema != null) {
        config = config.schemas(schema).defaultSchema(schema).createSchemas(true);
      }
      config.load().migrate();
    } catch (FlywayException e) {
      throw new ChatStoreException(what + ": schema migration failed: " + e.getMessage(), e);
    }
  }
}
