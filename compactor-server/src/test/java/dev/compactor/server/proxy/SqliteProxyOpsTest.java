package dev.compactor.server.proxy;

import java.nio.file.Path;

/** The proxy's operations on a SQLite store. */
class SqliteProxyOpsTest extends ProxyOpsContract {
  @Override
  ProxyStore openStore(Path dir) {
    return ProxyStore.openSqlite(dir.resolve("proxy.db"));
  }
}
