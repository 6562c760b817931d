package dev.compactor.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunningTokenTotalTest {
  private final TokenCounter counter = TokenCounters.o200k();

  @Test
  void update_appendOnly_addsNewMessagesOnly() {
    List<String> encoded = new ArrayList<>();
    TokenCounter counting = TokenCountersTest.countingCounter(encoded);
    RunningTokenTotal total = new RunningTokenTotal(counting);
    List<Message> log = new ArrayList<>(List.of(Message.system("sys"), Message.user("hello")));
    assertThat(total.update(log)).isEqualTo(counting.countMessages(log));
    encoded.clear();
    log.add(Message.assistant("hi there"));
    assertThat(total.update(log)).isEqualTo(counting.countMessages(log));
    assertThat(encoded).containsExactly("hi there");
    assertThat(total.size()).isEqualTo(3);
  }

  @Test
  void update_nonAppendChange_recountsFromScratch() {
    RunningTokenTotal total = new RunningTokenTotal(counter);
    List<Message> log = new ArrayList<>(List.of(Message.user("a"), Message.user("b")));
    total.update(log);
    log.set(1, Message.user("a much longer replacement message"));
    assertThat(total.update(log)).isEqualTo(counter.countMessages(log));
    log.remove(1);
    assertThat(total.update(log)).isEqualTo(counter.countMessages(log));
  }

  @Test
  void uiOnlyMessages_countZero_andEmptyTotalIsZero() {
    RunningTokenTotal total = new RunningTokenTotal(counter);
    assertThat(total.total()).isZero();
    total.add(Message.builder(Role.SYSTEM).content("status").uiOnly(true).build());
    assertThat(total.total()).isZero();
    total.add(Message.user("x"));
    assertThat(total.total()).isEqualTo(counter.countMessages(List.of(Message.user("x"))));
  }
}
