package dev.compactor.server.proxy;

import java.nio.file.Path;

/** The proxy on a SQLite store. */
class SqliteProxyTest extends ProxyContract {
  @Override
  ProxyStore openStore(Path dir) {
    return ProxyStore.openSqlite(dir.resolve("proxy.db"));
  }
}
