package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * mini-swe-agent trajectories ({@code *.traj.json}): {@code {"info", "messages",
 * "trajectory_format": "mini-swe-agent-…", "instance_id"}} with OpenAI chat messages. The
 * conversation is named by {@code instance_id} (else the file name); {@code info} and the other
 * top-level fields are its metadata. Per-message {@code extra.response} (the raw provider response)
 * gives each assistant message its model and usage; the final {@code exit} message becomes a {@code
 * uiOnly} system message.
 */
final class MiniSweAgentImporter extends JsonDocumentImporter {
  static final String NAME = "mini-swe-agent";

  MiniSweAgentImporter() {
    super(NAME, "mini-swe-agent trajectory: {info, messages, trajectory_format}");
  }

  @Override
  Detection detect(JsonNode root) {
    if (!root.isObject()) {
      return Detection.reject("the document is " + JsonFormats.kind(root) + ", not an object");
    }
    String format = Json.text(root, "trajectory_format");
    boolean marked =
        (format != null && format.startsWith("mini-swe-agent"))
            || root.path("info").has("mini_version");
    if (!marked) {
      return Detection.reject("no \"trajectory_format\": \"mini-swe-agent-…\" field");
    }
    String problem = JsonFormats.chatArrayProblem(root.get("messages"), "messages");
    if (problem != null) {
      return Detection.reject(problem);
    }
    return Detection.match(95, "trajectory_format " + format);
  }

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    JsonNode root = source.json();
    String id = Json.text(root, "instance_id");
    String name = id != null && !id.isBlank() ? id : source.baseName();
    return List.of(
        openAiConversation(source, root, "messages", Set.of("messages"), name, List.of()));
  }
}
