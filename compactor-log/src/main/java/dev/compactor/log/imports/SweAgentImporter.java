package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * SWE-agent trajectories ({@code *.traj}): the conversation is {@code history}, OpenAI chat
 * messages with SWE-agent's extra fields ({@code agent}, {@code is_demo}, {@code thought}, {@code
 * action}, {@code message_type}, kept in {@code metadata.extra}) and {@code tool_call_ids} lists on
 * tool results. {@code info}, {@code environment} and the other top-level fields except {@code
 * trajectory} (the same steps again, as action/observation/thought) are the conversation's
 * metadata.
 */
final class SweAgentImporter extends JsonDocumentImporter {
  static final String NAME = "swe-agent";

  SweAgentImporter() {
    super(NAME, "SWE-agent trajectory: {history, trajectory, info, …}");
  }

  @Override
  Detection detect(JsonNode root) {
    if (!root.isObject() || !root.has("history")) {
      return Detection.reject(
          "the document is " + JsonFormats.kind(root) + ", without a \"history\" list");
    }
    String problem = JsonFormats.chatArrayProblem(root.get("history"), "history");
    if (problem != null) {
      return Detection.reject(problem);
    }
    return Detection.match(
        root.has("trajectory") || root.path("history").get(0).has("agent") ? 90 : 70,
        "an object with a \"history\" message list");
  }

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    JsonNode root = source.json();
    List<String> notes = new ArrayList<>();
    JsonNode steps = root.get("trajectory");
    if (steps != null && steps.isArray()) {
      notes.add(
          "the "
              + steps.size()
              + " \"trajectory\" steps were not imported: \"history\" holds the same conversation");
    }
    return List.of(
        openAiConversation(
            source, root, "history", Set.of("history", "trajectory"), source.baseName(), notes));
  }
}
