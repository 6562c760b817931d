package dev.compactor.server.proxy;

import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.Reply;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The setup of the tests that drive the proxy with a client of their own: a fake provider that
 * gives its {@code n}-th call {@link #reply(int)}, behind a real proxy on SQLite in local mode
 * ({@link ProxyFixture#localOnSqlite}). A subclass's own {@code @BeforeEach} runs after this
 * class's, its {@code @AfterEach} before.
 */
abstract class LocalProxyTest {
  @TempDir Path dir;
  ProxyFixture f;
  private final AtomicInteger calls = new AtomicInteger();

  /** The provider's reply to its call {@code n} (0-based). */
  abstract Reply reply(int n);

  /** The fake provider before it starts (a subclass may give it a context window). */
  FakeModelServer.Builder provider() {
    return FakeModelServer.builder();
  }

  @BeforeEach
  void startProxy() {
    FakeModelServer model = provider().replyWith(r -> reply(calls.getAndIncrement())).start();
    f = ProxyFixture.localOnSqlite(model, dir);
  }

  @AfterEach
  void stopProxy() {
    f.close();
  }
}
