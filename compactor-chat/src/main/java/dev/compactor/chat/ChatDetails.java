package dev.compactor.chat;

import dev.compactor.chat.base.CallUsage;
import dev.compactor.chat.base.CompactionDetails;

/**
 * {@code _gpt_chat_details}: how a call was handled.
 *
 * @param api the wire API of the model call ({@code responses}, {@code chat_completions}, {@code
 *     anthropic_messages}); null when the call did not go to the model
 * @param model the chat's model after the call, or null when it has none yet
 * @param messageCount messages in the chat after the call
 * @param interactions model calls the chat has made, this one included
 * @param compaction what compaction did; null when the chat has no compaction settings
 * @param summaryUsage the summary call's usage and cost, reported apart from the chat's own call;
 *     null when nothing was summarized
 * @param overflowRetries retries overflow recovery needed; null when the call did not go to the
 *     model
 */
public record ChatDetails(
    String api,
    String model,
    int messageCount,
    long interactions,
    CompactionDetails compaction,
    CallUsage summaryUsage,
    Integer overflowRetries) {}
