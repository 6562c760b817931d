package dev.compactor.server.proxy;

import java.nio.file.Path;

/** The Responses route of the proxy on a SQLite store. */
class SqliteResponsesProxyTest extends ResponsesProxyContract {
  @Override
  ProxyStore openStore(Path dir) {
    return ProxyStore.openSqlite(dir.resolve("proxy.db"));
  }
}
