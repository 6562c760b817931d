package dev.compactor.chat.store;

import javax.sql.DataSource;

/**
 * Applies the versioned schema migrations with Flyway: {@code V<n>__<what>.sql} scripts under
 * {@code dev/compactor/chat/store/migration/<dialect>/}, recorded in Flyway's {@code
 * flyway_schema_history} table. A migration once released is never edited; a schema change is a new
 * script in both dialects.
 */
final class Migrations {
  private Migrations() {}

  static final String LOCATION = "classpath:dev/compactor/chat/store/migration/";

  static void migrate(DataSource ds, String dialect, String schema, String what) {
    StoreDatabases.migrate(
        ds,
        Migrations.class.getClassLoader(),
        LOCATION + dialect,
        null,
        schema,
        what,
        ChatStoreException::new);
  }
}
