package dev.compactor.core.compaction.trim;

import dev.compactor.core.compaction.OutputArchive;
import dev.compactor.core.message.Message;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** An archive that remembers what it was given and returns {@code saved#N of <id>}. */
final class RecordingArchive implements OutputArchive {
  record Saved(Message source, String content) {}

  final List<Saved> saved = Collections.synchronizedList(new ArrayList<>());

  @Override
  public String save(Message source, String content) {
    saved.add(new Saved(source, content));
    return "saved#" + saved.size() + " of " + source.id();
  }
}
