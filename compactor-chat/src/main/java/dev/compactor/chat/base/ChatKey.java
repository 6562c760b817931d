package dev.compactor.chat.base;

import java.util.Objects;

/**
 * Identifies a chat: a tenant and a chat id within it. Both are non-blank strings of at most
 * {@value #MAX_LENGTH} characters without control characters.
 *
 * @param tenant who the chat belongs to; {@value #DEFAULT_TENANT} when a caller names none
 * @param chatId the chat's id within the tenant
 */
public record ChatKey(String tenant, String chatId) {
  /** The tenant of calls that name none. */
  public static final String DEFAULT_TENANT = "default";

  /** Longest tenant or chat id accepted. */
  public static final int MAX_LENGTH = 200;

  /**
   * @throws IllegalArgumentException naming the field when a value is blank, too long or contains
   *     control characters
   */
  public ChatKey {
    check("tenant", tenant);
    check("chat id", chatId);
  }

  /** The chat {@code chatId} of the {@value #DEFAULT_TENANT} tenant. */
  public static ChatKey of(String chatId) {
    return new ChatKey(DEFAULT_TENANT, chatId);
  }

  /** The chat {@code chatId} of {@code tenant}, or of the default tenant when it is null. */
  public static ChatKey of(String tenant, String chatId) {
    return new ChatKey(tenant == null ? DEFAULT_TENANT : tenant, chatId);
  }

  /**
   * Returns {@code tenant} when it is a valid tenant of a chat key.
   *
   * @throws IllegalArgumentException as the constructor, for the tenant
   */
  public static String requireTenant(String tenant) {
    check("tenant", tenant);
    return tenant;
  }

  private static void check(String field, String value) {
    Objects.requireNonNull(value, field);
    if (value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank");
    }
    if (value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          field + " must be at most " + MAX_LENGTH + " characters, got " + value.length());
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(field + " \"" + value + "\" contains control characters");
    }
  }

  @Override
  public String toString() {
    return tenant + "/" + chatId;
  }
}
