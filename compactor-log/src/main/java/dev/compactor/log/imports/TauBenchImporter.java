package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * tau-bench historical trajectories: a JSON list of {@code {task_id, reward, info, traj, trial}}
 * where {@code traj} is an OpenAI chat. Each entry is one conversation named {@code
 * task-<task_id>/trial-<trial>}; the entry's other fields (task id, trial, reward, info) are its
 * metadata.
 */
final class TauBenchImporter extends JsonDocumentImporter {
  static final String NAME = "tau-bench";

  TauBenchImporter() {
    super(NAME, "tau-bench trajectories: [{task_id, reward, info, traj, trial}]");
  }

  @Override
  Detection detect(JsonNode root) {
    if (!root.isArray() || root.isEmpty()) {
      return Detection.reject("the document is " + JsonFormats.kind(root) + ", not a list of runs");
    }
    JsonNode first = root.get(0);
    if (!first.isObject() || !first.path("traj").isArray()) {
      return Detection.reject("the first list entry has no \"traj\" array");
    }
    return Detection.match(
        first.has("task_id") ? 95 : 80, "a list of runs with \"traj\" (and task_id)");
  }

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    JsonNode root = source.json();
    if (!root.isArray()) {
      throw new ImportException(source.name() + ": not a JSON list of tau-bench runs");
    }
    List<ImportedConversation> out = new ArrayList<>(root.size());
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < root.size(); i++) {
      JsonNode run = root.get(i);
      requireChatArray(
          source, run.get("traj"), "entry " + i + " traj", java.util.List.of(i, "traj"));
      String name = "task-" + label(run.get("task_id"), i) + "/trial-" + label(run.get("trial"), 0);
      int n = seen.merge(name, 1, Integer::sum);
      List<String> notes = new ArrayList<>();
      List<String> problems = new ArrayList<>();
      if (n > 1) {
        notes.add("a second run with the name " + name + " (entry " + i + ") was renamed #" + n);
        name = name + "#" + n;
      }
      List<Message> messages =
          OpenAiMessages.map(run.get("traj"), "traj", notes, problems, source, List.of(i, "traj"));
      Map<String, Object> metadata = Json.rest(run, Set.of("traj"));
      out.add(Assembly.conversation(name, messages, metadata, notes, problems, m -> true));
    }
    return out;
  }

  private static String label(JsonNode v, int fallback) {
    if (v == null || v.isNull()) {
      return String.valueOf(fallback);
    }
    return v.isValueNode() ? v.asText() : Json.write(v);
  }
}
