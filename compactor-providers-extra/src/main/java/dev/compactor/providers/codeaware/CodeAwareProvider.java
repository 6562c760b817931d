package dev.compactor.providers.codeaware;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Code-aware compression ({@value #NAME}): in older assistant messages that contain fenced code,
 * the code blocks stay byte for byte and the prose around them is condensed hard — each paragraph
 * keeps its first sentence and the sentences that name a file or an error, list items likewise,
 * headings stay, and a paragraph that lost sentences ends with {@code […]}.
 *
 * <p>The idea: in a coding session the code an assistant wrote is what later turns refer to (and
 * what a model must not misremember), while the explanation around it is mostly restated elsewhere.
 * Condensed text is condensed again to the same text, so running it twice changes nothing.
 *
 * <p>A message is condensed when it is an assistant message at least 3 messages from the end,
 * without reasoning blocks (providers verify those and the text next to them), without tool calls,
 * not pinned, not {@code uiOnly}, not within {@link CompressionConfig#keepHead()}, has a fenced
 * code block, and condensing saves at least 10 % of its tokens. It gets the new id {@code
 * <id>~code-aware} and a provenance entry naming the original. Nothing else changes: roles, order,
 * timestamps, tool calls and results stay as they are.
 *
 * <p>{@link #shouldCompress} is true when the messages count more than 90 % of {@code
 * config.limit()} tokens; never without a limit. Stateless and thread-safe; found by {@link
 * java.util.ServiceLoader} through this module's {@code META-INF/services}.
 *
 * <pre>{@code
 * ContextProvider p = ProviderRegistry.global().get("code-aware");
 * CompressionConfig cfg = CompressionConfig.builder().limit(100_000).build();
 * if (p.shouldCompress(messages, cfg)) {
 *   messages = p.compress(messages, cfg).messages();
 * }
 * }</pre>
 */
public final class CodeAwareProvider implements ContextProvider {

  /** The registered name. */
  public static final String NAME = "code-aware";

  /** Messages closer than this to the end are never condensed. */
  public static final int MIN_DISTANCE_FROM_END = 3;

  /** Fraction of the limit above which {@link #shouldCompress} is true. */
  public static final double TRIGGER_RATIO = 0.9;

  private static final double MIN_SAVING = 0.10;

  /** Creates the provider (the {@link java.util.ServiceLoader} constructor). */
  public CodeAwareProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /** True when the messages count more than 90 % of {@code config.limit()}; false without one. */
  @Override
  public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
    return config.limit() != null
        && config.counter().countMessages(messages) > TRIGGER_RATIO * config.limit();
  }

  /** Condenses the prose of every eligible message; the input unchanged when none qualifies. */
  @Override
  public CompactionResult compress(List<Message> messages, CompressionConfig config) {
    TokenCounter counter = config.counter();
    List<Message> out = new ArrayList<>(messages);
    Map<MessageId, List<MessageId>> provenance = new LinkedHashMap<>();
    long before = 0;
    long after = 0;
    for (int i = config.keepHead(); i <= messages.size() - 1 - MIN_DISTANCE_FROM_END; i++) {
      Message m = messages.get(i);
      if (!eligible(m)) {
        continue;
      }
      String condensed = ProseCondenser.condense(m.content());
      int was = counter.countText(m.content());
      int is = counter.countText(condensed);
      if (is > (1 - MIN_SAVING) * was) {
        continue;
      }
      Message c =
          m.toBuilder().id(MessageId.of(m.id().value() + "~" + NAME)).content(condensed).build();
      out.set(i, c);
      provenance.put(c.id(), List.of(m.id()));
      before += was;
      after += is;
    }
    if (provenance.isEmpty()) {
      return CompactionResult.unchanged(messages);
    }
    String note =
        String.format(
            Locale.ROOT,
            "condensed the prose of %d assistant message(s) around their code blocks (code kept"
                + " verbatim): %,d -> %,d tokens",
            provenance.size(),
            before,
            after);
    return CompactionResult.of(messages, out, List.of(note), provenance);
  }

  private static boolean eligible(Message m) {
    return m.role() == Role.ASSISTANT
        && m.reasoning().isEmpty()
        && !m.hasToolCalls()
        && !m.pinned()
        && !m.uiOnly()
        && ProseCondenser.hasFencedCode(m.content());
  }
}
