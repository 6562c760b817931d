package dev.compactor.core.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ViewBuilder;
import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecallToolTest {
  private static final String OUTPUT = "def helper_one():\n    return 42\n".repeat(20);

  /** A conversation whose active view masks the first of two outputs. */
  private static InMemoryConversation masked() {
    List<Message> messages =
        new Conv().user("go").tool("shell", "{}", OUTPUT).tool("shell", "{}", OUTPUT).build();
    InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog(messages));
    CompactionResult r =
        new MaskProvider()
            .compress(
                conv.activeMessages(),
                CompressionConfig.builder()
                    .limit(1)
                    .extraConfig(Map.of("keep_last", 1, "batch", 1))
                    .build());
    conv.switchTo(
        ViewBuilder.build(conv.activeView(), conv.activeMessages(), r, conv.nextViewId()));
    return conv;
  }

  @Test
  void spec_declaresOneRequiredStringId() {
    assertThat(RecallTool.spec().name()).isEqualTo("recall_output");
    assertThat(RecallTool.spec().jsonSchema()).contains("\"required\":[\"id\"]");
  }

  @Test
  void aMaskedOutput_comesBackWhole_byItsMaskedId_orItsSourceId() {
    InMemoryConversation conv = masked();
    assertThat(conv.activeMessages().get(2).content()).startsWith(MaskProvider.PLACEHOLDER_PREFIX);
    assertThat(RecallTool.run(conv, "{\"id\": \"m2~masked\"}")).isEqualTo(OUTPUT);
    assertThat(RecallTool.recall(conv, "m2")).isEqualTo(OUTPUT);
  }

  @Test
  void anUnknownId_orMissingArguments_failNamingThem() {
    InMemoryConversation conv = masked();
    assertThatThrownBy(() -> RecallTool.recall(conv, "nope"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("\"nope\"");
    assertThatThrownBy(() -> RecallTool.run(conv, "{\"key\": 1}"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("{\"key\": 1}");
  }
}
