package dev.compactor.replay;

import dev.compactor.replay.cost.CacheModel;
import java.util.Collection;

/**
 * The scorecard's figures for one conversation, one file or a whole run, under one strategy. Sums
 * add up over conversations; {@link #peakTokens} is a maximum.
 *
 * <p>Definitions (see {@code docs/replay.md}):
 *
 * @param conversations replayed conversations
 * @param calls model calls: one before each recorded (non-uiOnly) assistant message
 * @param inputTokens sum over calls of the tokens of the view sent (messages plus reply priming,
 *     counted with the replay's counter)
 * @param peakTokens the largest input of one call
 * @param overWindowCalls calls whose input plus the reserved maximum output exceeds the window
 *     ({@code input > window − maxOutput}): the request would be rejected or its answer cut
 * @param compactions new views the strategy switched to
 * @param reminders provider-visible reminder messages the strategy added
 * @param failures compactions attempted that failed (the view stayed as it was)
 * @param summaryCalls summaries produced (each would be one summarizer model call)
 * @param summaryInputTokens what those calls would send
 * @param summaryOutputTokens what they would return (the checkpoints)
 * @param cachedTokens input tokens of the calls' prefixes that were unchanged since the previous
 *     call of the same conversation (compared message by message)
 * @param outputTokens tokens of the recorded assistant messages (what the calls returned; the same
 *     for every strategy)
 * @param promptCostOpenAi USD for the calls' input under {@link CacheModel#OPENAI}
 * @param promptCostAnthropic USD for the calls' input under {@link CacheModel#ANTHROPIC}
 * @param outputCost USD for the calls' output
 * @param summaryCost USD for the summary calls (input uncached, output), as if a model-backed
 *     summarizer of the same model ran
 * @param invalidViews calls whose view broke an invariant of {@link
 *     dev.compactor.core.view.ViewValidator}
 * @param neededFacts over calls, identifiers the recorded assistant message uses that appeared in
 *     an earlier recorded message ({@link dev.compactor.replay.internal.Facts})
 * @param recalledFacts those still present in the view sent at that call
 * @param compactionNanos time spent in the strategy's after-turn step (trigger checks and
 *     compactions)
 * @param recallCalls extra model calls that recalled masked outputs with the recovery tool (only
 *     for a strategy that offers it, {@link ReplayStrategy#recallTool()}); their input is part of
 *     {@code inputTokens} and the prompt costs, their tool calls part of {@code outputTokens}
 * @param recallTokens tokens those calls brought back (the recalled outputs and the calls)
 * @param recoveredFacts needed facts that were recalled only through the tool (part of {@code
 *     recalledFacts})
 */
public record Metrics(
    long conversations,
    long calls,
    long inputTokens,
    long peakTokens,
    long overWindowCalls,
    long compactions,
    long reminders,
    long failures,
    long summaryCalls,
    long summaryInputTokens,
    long summaryOutputTokens,
    long cachedTokens,
    long outputTokens,
    double promptCostOpenAi,
    double promptCostAnthropic,
    double outputCost,
    double summaryCost,
    long invalidViews,
    long neededFacts,
    long recalledFacts,
    long compactionNanos,
    long recallCalls,
    long recallTokens,
    long recoveredFacts,
    long plannedCompactions,
    double predictedSaving,
    double realisedSaving) {

  /** No conversation, nothing measured. */
  public static final Metrics ZERO =
      new Metrics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** Total USD under a cache model: prompts, outputs and summary calls. */
  public double costUsd(CacheModel cache) {
    double prompt = cache == CacheModel.OPENAI ? promptCostOpenAi : promptCostAnthropic;
    return prompt + outputCost + summaryCost;
  }

  /** Input-side USD under a cache model: prompts and summary calls, without the calls' output. */
  public double inputCostUsd(CacheModel cache) {
    return costUsd(cache) - outputCost;
  }

  /** {@code recalledFacts / neededFacts}, 1 when nothing was needed. */
  public double recall() {
    return neededFacts == 0 ? 1.0 : (double) recalledFacts / neededFacts;
  }

  /** Compaction time in milliseconds. */
  public double compactionMillis() {
    return compactionNanos / 1e6;
  }

  /** This plus {@code o}: sums, and the larger peak. */
  public Metrics plus(Metrics o) {
    return new Metrics(
        conversations + o.conversations,
        calls + o.calls,
        inputTokens + o.inputTokens,
        Math.max(peakTokens, o.peakTokens),
        overWindowCalls + o.overWindowCalls,
        compactions + o.compactions,
        reminders + o.reminders,
        failures + o.failures,
        summaryCalls + o.summaryCalls,
        summaryInputTokens + o.summaryInputTokens,
        summaryOutputTokens + o.summaryOutputTokens,
        cachedTokens + o.cachedTokens,
        outputTokens + o.outputTokens,
        promptCostOpenAi + o.promptCostOpenAi,
        promptCostAnthropic + o.promptCostAnthropic,
        outputCost + o.outputCost,
        summaryCost + o.summaryCost,
        invalidViews + o.invalidViews,
        neededFacts + o.neededFacts,
        recalledFacts + o.recalledFacts,
        compactionNanos + o.compactionNanos,
        recallCalls + o.recallCalls,
        recallTokens + o.recallTokens,
        recoveredFacts + o.recoveredFacts,
        plannedCompactions + o.plannedCompactions,
        predictedSaving + o.predictedSaving,
        realisedSaving + o.realisedSaving);
  }

  /** The sum of several. */
  public static Metrics sum(Collection<Metrics> all) {
    Metrics m = ZERO;
    for (Metrics x : all) {
      m = m.plus(x);
    }
    return m;
  }
}
