package dev.compactor.chat.internal;

import dev.compactor.chat.base.CallUsage;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.settings.SummarySettings;
import dev.compactor.chat.settings.SummarySettings.Activation;
import dev.compactor.chat.settings.SummarySettings.MainSystemMessage;
import dev.compactor.chat.settings.SummarySettings.MessageSelection;
import dev.compactor.core.catalog.PriceTable;
import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.core.compaction.summary.SummarizationException;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.compaction.summary.SummaryText;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Summarizes part of a chat's history with a model and puts the summary in its place: the operation
 * summary compaction runs automatically and on-demand summarization runs when asked.
 *
 * <p><b>Selection</b> ({@link #select}): everything except the main system message (the first
 * message, when it is a system message and {@code main_system_message} is {@code exclude}) and the
 * last {@code keep_last_messages} messages. The kept window is widened backwards until no kept tool
 * result's call is in the summarized part, so a tool call and its results are always summarized
 * together or kept together. Fewer than two messages to summarize: nothing to do.
 *
 * <p><b>Result</b>: the main system message (when kept), one summary message ({@code
 * injection.role}, {@code injection.template} with the summary), the kept messages. The summary
 * message carries the record's uuid in {@code metadata.extra.gpt_summary_uuid} and the timestamp of
 * the last summarized message, so timestamps stay in order.
 *
 * <p>The summary is written by core's {@link ModelSummarizer} ({@link Summarizer#summarizeText}):
 * the settings' instructions as the system message, the covered messages as a numbered transcript.
 *
 * <p>Stateless apart from its collaborators; thread-safe.
 */
public final class SummaryCompactor {
  /** {@code metadata.extra} key of a summary message: the summary record's uuid. */
  public static final String SUMMARY_UUID_KEY = "gpt_summary_uuid";

  /** Longest text of one message in the summarizer's input; longer ones keep head and tail. */
  public static final int MAX_MESSAGE_CHARS = ModelSummarizer.TEXT_CLIP_CHARS;

  private final PriceTable prices;
  private final Supplier<String> uuids;

  /**
   * @param prices for the summary call's cost
   * @param uuids makes summary record ids
   */
  public SummaryCompactor(PriceTable prices, Supplier<String> uuids) {
    this.prices = Objects.requireNonNull(prices, "prices");
    this.uuids = Objects.requireNonNull(uuids, "uuids");
  }

  /**
   * The part of a history that would be summarized: messages {@code [start, end)}.
   *
   * @param start first summarized message
   * @param end one past the last summarized message (the first kept one)
   */
  public record Selection(int start, int end) {
    public Selection {
      if (start < 0 || end - start < 2) {
        throw new IllegalArgumentException(
            "a selection covers at least two messages, got [" + start + ", " + end + ")");
      }
    }

    public int size() {
      return end - start;
    }
  }

  /**
   * What a summarization produced.
   *
   * @param uuid the summary record's id
   * @param history the new history
   * @param covered the summarized messages, in order (to archive)
   * @param summaryMessage the message carrying the summary
   * @param summaryText the summary as the model wrote it
   * @param usage the summary call's usage and cost
   */
  public record Summary(
      String uuid,
      List<Message> history,
      List<Message> covered,
      Message summaryMessage,
      String summaryText,
      CallUsage usage) {}

  /**
   * Whether an activation threshold is reached: the history has at least {@code message_count}
   * messages, or the most recent model call's context (prompt plus completion tokens) was at least
   * {@code token_count}.
   *
   * @param messageCount messages in the existing history
   * @param contextTokens the most recent model call's prompt plus completion tokens, or null
   */
  public static boolean thresholdReached(Activation a, int messageCount, Long contextTokens) {
    if (a.messageCount() != null && messageCount >= a.messageCount()) {
      return true;
    }
    return a.tokenCount() != null && contextTokens != null && contextTokens >= a.tokenCount();
  }

  /**
   * Which messages of {@code history} to summarize, by the selection rules of the class comment;
   * empty when fewer than two would be.
   */
  public static Optional<Selection> select(List<Message> history, MessageSelection selection) {
    int n = history.size();
    int start =
        selection.mainSystemMessage() == MainSystemMessage.EXCLUDE
                && n > 0
                && history.get(0).role() == Role.SYSTEM
            ? 1
            : 0;
    int end = Math.max(start, n - selection.keepLastMessages());
    Map<String, Integer> callOwner = new HashMap<>();
    for (int i = 0; i < n; i++) {
      for (ToolCall c : history.get(i).toolCalls()) {
        callOwner.putIfAbsent(c.id(), i);
      }
    }
    boolean moved = true;
    while (moved && end > start) {
      moved = false;
      for (int i = end; i < n; i++) {
        Message m = history.get(i);
        if (m.isToolResult() && m.toolCallId() != null) {
          Integer owner = callOwner.get(m.toolCallId());
          if (owner != null && owner < end && owner >= start) {
            end = owner;
            moved = true;
            break;
          }
        }
      }
    }
    return end - start >= 2 ? Optional.of(new Selection(start, end)) : Optional.empty();
  }

  /**
   * Summarizes {@code selection} of {@code history} with {@code model}.
   *
   * @param modelName the summarizing model's {@code provider/model}, for the record and the cost
   * @throws ChatTaskException code {@code SUMMARIZE_FAILED} when the call fails or returns no text
   */
  public Summary summarize(
      List<Message> history,
      Selection selection,
      SummarySettings settings,
      ChatModel model,
      String modelName) {
    if (selection.end() > history.size()) {
      throw new IllegalArgumentException("selection beyond the history");
    }
    List<Message> covered = List.copyOf(history.subList(selection.start(), selection.end()));
    Summarizer summarizer = ModelSummarizer.builder(model).build();
    SummaryText written;
    try {
      written =
          summarizer.summarizeText(
              covered,
              settings.summarization().instructions(),
              settings.summarization().maxOutputTokens());
    } catch (SummarizationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new ChatTaskException(
          ChatTaskException.Code.SUMMARIZE_FAILED,
          "summarization with " + modelName + " failed: " + cause.getMessage(),
          cause);
    }
    String text = written.text();
    if (text.isEmpty()) {
      throw new ChatTaskException(
          ChatTaskException.Code.SUMMARIZE_FAILED,
          "summarization with "
              + modelName
              + " returned no text (finish reason "
              + written.finishReason()
              + ")");
    }
    String uuid = uuids.get();
    Usage usage = written.usage();
    Message summary =
        Message.builder(settings.injection().role())
            .id(MessageId.of("summary-" + uuid))
            .content(settings.injection().render(text))
            .timestamp(covered.get(covered.size() - 1).timestamp())
            .metadata(
                new MessageMetadata(
                    modelName, model.provider(), null, null, Map.of(SUMMARY_UUID_KEY, uuid)))
            .build();
    List<Message> out = new ArrayList<>(history.size() - covered.size() + 1);
    out.addAll(history.subList(0, selection.start()));
    out.add(summary);
    out.addAll(history.subList(selection.end(), history.size()));
    return new Summary(
        uuid,
        List.copyOf(out),
        covered,
        summary,
        text,
        new CallUsage(modelName, usage, prices.cost(modelName, usage).orElse(null)));
  }

  /** The summarizer's input: the covered messages as a numbered transcript. */
  static String transcript(List<Message> covered) {
    return ModelSummarizer.transcript(covered);
  }
}
