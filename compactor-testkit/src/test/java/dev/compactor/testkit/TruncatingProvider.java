package dev.compactor.testkit;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A trivial provider: tool outputs before the last three are cut to 40 characters. */
final class TruncatingProvider extends OverLimitProvider {
  TruncatingProvider() {
    super("test-truncate");
  }

  @Override
  public CompactionResult compress(List<Message> messages, CompressionConfig config) {
    List<Integer> outputs = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).role() == Role.TOOL) {
        outputs.add(i);
      }
    }
    List<Message> out = new ArrayList<>(messages);
    Map<MessageId, List<MessageId>> provenance = new LinkedHashMap<>();
    for (int k = 0; k < outputs.size() - 3; k++) {
      Message m = messages.get(outputs.get(k));
      if (m.pinned() || m.content().length() <= 60) {
        continue;
      }
      Message cut =
          m.toBuilder()
              .id(m.id().value() + "~cut")
              .content(m.content().substring(0, 40) + " [cut]")
              .build();
      out.set(outputs.get(k), cut);
      provenance.put(cut.id(), List.of(m.id()));
    }
    return CompactionResult.of(messages, out, List.of(), provenance);
  }
}
