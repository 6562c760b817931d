package dev.compactor.models.internal;

/**
 * One server-sent event.
 *
 * @param event the {@code event:} field, or null
 * @param data the {@code data:} lines joined with newlines
 */
public record SseEvent(String event, String data) {}
