package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.InputFingerprints;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.recovery.OverflowRecovery;
import dev.compactor.core.recovery.RecoveryResult;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.core.view.ViewValidator;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Overflow recovery on the on-disk conversation: the kept view, its markers and the journal. */
class OverflowRecoveryStoredTest {
  @TempDir Path dir;

  @Test
  void recoveredView_isPersisted_andItsMarkersRecoverAfterReopening() {
    List<Message> originals = new ArrayList<>();
    List<String> markers = new ArrayList<>();
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.append(Message.system("You are careful."));
      c.append(Message.user("Build the project."));
      for (int i = 0; i < 60; i++) {
        c.append(Message.assistant("step " + i, List.of(new ToolCall("call" + i, "shell", "{}"))));
        c.append(Message.toolResult("call" + i, ("output line " + i + "\n").repeat(30)));
      }
      c.append(Message.user("Now test it."));
      c.append(Message.assistant("Testing."));
      originals.addAll(c.master().messages());
      int[] calls = {0};
      Function<ChatRequest, ChatResponse> send =
          req -> {
            if (calls[0]++ < 4) {
              throw new ContextOverflowException(
                  "too long",
                  ModelError.of("test", 400),
                  OptionalLong.empty(),
                  OptionalLong.empty(),
                  null,
                  null);
            }
            Message reply =
                InputFingerprints.stamp(Message.assistant("ok"), req.messages(), "test-model");
            return new ChatResponse(reply, null, FinishReason.STOP, null, null, null, null);
          };
      OverflowRecovery recovery =
          new OverflowRecovery(Clock.systemUTC(), r -> c.journal().append(CompactionRecord.of(r)));
      PolicyContext ctx =
          PolicyContext.of(
              "test/model",
              100_000,
              CompressionConfig.builder()
                  .counter(TokenCounters.estimate())
                  .archive(new StoredArchive(c))
                  .build());

      RecoveryResult r =
          recovery.call(
              c, ChatRequest.of(c.activeMessages()), ctx, send, ViewValidator.Target.GENERIC);
      c.append(r.response().message());

      assertThat(r.report().retries()).isEqualTo(4);
      InputFingerprint fp =
          c.activeMessages().get(c.activeMessages().size() - 1).metadata().input();
      assertThat(fp.messageCount()).isEqualTo(c.activeMessages().size() - 1);
      for (ViewEntry e : c.activeView().entries()) {
        if (e instanceof ViewEntry.Synthesized s
            && s.message().metadata().extra().containsKey(OverflowRecovery.MARKER_KEY)) {
          markers.add(s.message().id().value());
        }
      }
    }
    assertThat(markers).isNotEmpty();

    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.activeView().id()).isEqualTo("compacted-001");
      assertThat(c.journal().entries())
          .singleElement()
          .satisfies(j -> assertThat(j.trigger()).isEqualTo("overflow"));
      assertThat(c.master().messages()).containsAll(originals);
      for (String id : markers) {
        List<Message> back = c.recover(dev.compactor.core.message.MessageId.of(id));
        assertThat(back).isNotEmpty().allMatch(originals::contains);
      }
      assertThat(new ViewValidator().validate(c.activeMessages())).isEmpty();
      assertThat(c.activeMessages()).extracting(Message::role).contains(Role.SYSTEM);
    }
  }
}
