package dev.compactor.server.proxy;

import dev.compactor.testkit.TestPostgres;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Proxy stores on PostgreSQL ({@link TestPostgres}) for the store contracts, each test in a fresh
 * schema that is dropped after it. Register as a field with {@code @RegisterExtension} and return
 * {@link #open()} from the contract's {@code openStore}.
 */
final class PostgresProxyStores implements AfterEachCallback {
  private final String schemaPrefix;
  private String schema;

  PostgresProxyStores(String schemaPrefix) {
    this.schemaPrefix = schemaPrefix;
  }

  /** A proxy store in a new, empty schema. */
  ProxyStore open() {
    schema = TestPostgres.newSchema(schemaPrefix);
    return ProxyStore.openPostgres(TestPostgres.jdbcUrl(), TestPostgres.properties(), schema);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (schema != null) {
      TestPostgres.dropSchema(schema);
      schema = null;
    }
  }
}
