/**
 * API keys and the tenants they name: the key format ({@link dev.compactor.chat.auth.ApiKeys}),
 * tenant names ({@link dev.compactor.chat.auth.TenantNames}) and the {@link
 * dev.compactor.chat.auth.KeyStore} contract. The stores live in {@code dev.compactor.chat.store}
 * ({@code ChatStore.keys()}): keys are kept in the same database as the chats.
 *
 * <p>A key is never part of an exception message, a {@code toString} or a log line; only its public
 * prefix ({@code cpk_<id>}) is.
 */
package dev.compactor.chat.auth;
