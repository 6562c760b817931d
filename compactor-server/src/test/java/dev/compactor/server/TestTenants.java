package dev.compactor.server;

import java.util.Map;
import java.util.Optional;

/** Tenants for the server's tests. */
public final class TestTenants {
  private TestTenants() {}

  /** Tenants with fixed keys ({@code key → tenant}), keys required, described as "test keys". */
  public static Tenants keys(Map<String, String> keyToTenant) {
    return new Tenants() {
      @Override
      public boolean keysRequired() {
        return true;
      }

      @Override
      public Optional<String> authenticate(String presentedKey) {
        return Optional.ofNullable(keyToTenant.get(presentedKey));
      }

      @Override
      public String describe() {
        return "test keys";
      }
    };
  }
}
