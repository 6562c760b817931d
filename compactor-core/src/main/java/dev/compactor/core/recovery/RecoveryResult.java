package dev.compactor.core.recovery;

import dev.compactor.core.model.ChatResponse;
import java.util.Objects;

/**
 * The answer {@link OverflowRecovery} obtained and how.
 *
 * @param response the provider's response; its message is stamped against the conversation's active
 *     messages as they are now (after any view switch), so append it next
 * @param report what was sent and what was kept
 */
public record RecoveryResult(ChatResponse response, RecoveryReport report) {
  public RecoveryResult {
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(report, "report");
  }
}
