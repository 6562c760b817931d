/**
 * Implementation shared by the provider clients: JSON helpers, the HTTP transport with retries, the
 * SSE reader, stream assembly, secret redaction and error classification. Not API: may change
 * without notice.
 */
package dev.compactor.models.internal;
