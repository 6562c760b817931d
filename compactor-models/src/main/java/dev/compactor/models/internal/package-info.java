/**
 * Implementation shared by the provider clients in {@code dev.compactor.models.openai} and {@code
 * dev.compactor.models.anthropic}. Not API: may change without notice, and an architecture test
 * keeps every other module out of it.
 *
 * <p>The client packages reach it through a few deliberate entry points: {@link HttpChatModel}
 * (extend it: settings, the shared transport with retries and timeouts, one request path per API),
 * {@link StreamSession}, {@link AssembledStream} and {@link SseEvent} (read one streamed attempt),
 * {@link ErrorMapper}, {@link FieldsErrorMapper}, {@link ErrorClassifier} and {@link Redactor} (map
 * a provider's failure to the model exceptions, secrets removed), {@link MessageAssembler} and
 * {@link Requests} (build request bodies and the reply message). The settings ({@code
 * ClientSetup}), the HTTP transport, the SSE reader and the overflow classifier are
 * package-private.
 */
package dev.compactor.models.internal;
