package dev.compactor.core.compaction.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdentifiersTest {
  @Test
  void of_isTheDistinctForEach_inOrder_andTheSameForAnEqualMessage() {
    Message m =
        Message.builder(Role.ASSISTANT)
            .content("def compute_total(x): raise KeyError in src/billing.py; compute_total(1)")
            .toolCalls(List.of(new ToolCall("call_1", "read_file", "{\"path\":\"src/app.py\"}")))
            .build();
    List<String> each = new ArrayList<>();
    Identifiers.forEach(
        m,
        id -> {
          if (!each.contains(id)) {
            each.add(id);
          }
        });
    assertThat(Identifiers.of(m)).containsExactlyElementsOf(each).contains("compute_total");
    assertThat(Identifiers.of(m.toBuilder().build())).isEqualTo(each);
  }

  @Test
  void of_aUiOnlyMessage_hasNone() {
    Message status = Message.builder(Role.USER).content("see src/billing.py").uiOnly(true).build();
    assertThat(Identifiers.of(status)).isEmpty();
  }
}
