package dev.compactor.core.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ViewValidatorTest {
  private final ViewValidator validator = new ViewValidator();

  private static Message call(String... ids) {
    return Message.assistant(
        "", java.util.Arrays.stream(ids).map(i -> new ToolCall(i, "shell", "{}")).toList());
  }

  private static List<Violation.Kind> kinds(List<Violation> v) {
    return v.stream().map(Violation::kind).toList();
  }

  @Test
  void validConversation_withParallelCalls_hasNoViolation() {
    List<Message> m =
        List.of(
            Message.system("sys"),
            Message.user("hi"),
            call("a", "b"),
            Message.toolResult("b", "B"),
            Message.toolResult("a", "A"),
            Message.assistant("done"));
    assertThat(validator.validate(m)).isEmpty();
  }

  @Test
  void pendingLastTurn_isAllowed() {
    List<Message> m = List.of(Message.user("hi"), call("a", "b"), Message.toolResult("a", "A"));
    assertThat(validator.validate(m)).isEmpty();
  }

  @Test
  void callWithoutResult_beforeConversationGoesOn_isMissingResult() {
    List<Message> m = List.of(Message.user("hi"), call("a"), Message.user("next"));
    assertThat(kinds(validator.validate(m))).containsExactly(Violation.Kind.MISSING_RESULT);
  }

  @Test
  void resultWithoutCall_isOrphan() {
    List<Message> m = List.of(Message.user("hi"), Message.toolResult("x", "X"));
    assertThat(kinds(validator.validate(m))).containsExactly(Violation.Kind.ORPHAN_RESULT);
  }

  @Test
  void parallelResultsInterruptedByUser_isSplit() {
    List<Message> m =
        List.of(
            Message.user("hi"),
            call("a", "b"),
            Message.toolResult("a", "A"),
            Message.user("interrupt"),
            Message.toolResult("b", "B"));
    assertThat(kinds(validator.validate(m)))
        .containsExactly(Violation.Kind.MISSING_RESULT, Violation.Kind.SPLIT_PARALLEL);
  }

  @Test
  void duplicateResultAndCall_areReported() {
    List<Message> m =
        List.of(
            Message.user("hi"),
            call("a"),
            Message.toolResult("a", "A"),
            Message.toolResult("a", "A again"),
            call("a"),
            Message.toolResult("a", "A"));
    assertThat(kinds(validator.validate(m)))
        .contains(Violation.Kind.DUPLICATE_RESULT, Violation.Kind.DUPLICATE_CALL);
  }

  @Test
  void timestampsGoingBackwards_areReported_andUiOnlyIsSkipped() {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    List<Message> m =
        List.of(
            Message.builder(Role.USER).content("a").timestamp(t.plusSeconds(10)).build(),
            Message.builder(Role.SYSTEM).content("ui").timestamp(t).uiOnly(true).build(),
            Message.builder(Role.USER).content("b").timestamp(t).build());
    List<Violation> v = validator.validate(m);
    assertThat(kinds(v)).containsExactly(Violation.Kind.TIMESTAMP_ORDER);
    assertThat(v.get(0).index()).isEqualTo(2);
  }

  @Test
  void anthropicTarget_rejectsSystemInTheMiddle_andAssistantFirst() {
    ViewValidator anthropic = new ViewValidator(ViewValidator.Target.ANTHROPIC);
    assertThat(
            kinds(
                anthropic.validate(
                    List.of(Message.system("s"), Message.assistant("x"), Message.system("late")))))
        .containsExactly(Violation.Kind.ROLE, Violation.Kind.ROLE);
    assertThat(validator.validate(List.of(Message.assistant("x"), Message.system("late"))))
        .isEmpty();
  }

  @Test
  void toolMessageWithoutCallId_isReported() {
    List<Message> m = List.of(Message.builder(Role.TOOL).content("x").build());
    assertThat(kinds(validator.validate(m))).containsExactly(Violation.Kind.TOOL_RESULT_WITHOUT_ID);
  }
}
