package dev.compactor.cli;

import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.tokens.TokenizerFamily;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Loads the tokenizer a command will most likely count with on a background thread, while the main
 * thread reads and decodes the conversation: a BPE rank file takes a few hundred milliseconds to
 * load, about as long as the rest of a one-shot {@code inspect}. The guess comes from {@code
 * --model}, else from the first model name in the first 64 KB of the file, else the default model;
 * the command itself counts with the model it resolves, so a wrong guess costs only the background
 * work. Nothing is loaded for models counted by estimate.
 */
final class TokenizerWarmUp {
  private static final int PEEK = 64 * 1024;
  private static final Pattern MODEL = Pattern.compile("\"model\"\\s*:\\s*\"([^\"]{1,200})\"");

  private TokenizerWarmUp() {}

  static void start(Path input, String explicitModel) {
    String model = explicitModel;
    if (model == null || model.isBlank()) {
      String seen = peekModel(input);
      model = seen != null ? seen : BudgetOptions.DEFAULT_MODEL;
    }
    TokenizerFamily family = TokenizerFamily.forModel(model);
    if (family == TokenizerFamily.ESTIMATE) {
      return;
    }
    Thread t =
        new Thread(
            () -> {
              try {
                TokenCounters.forFamily(family).countText("warm up");
              } catch (RuntimeException | Error e) {
                // The command loads it again and reports what fails.
              }
            },
            "compactor-tokenizer");
    t.setDaemon(true);
    t.start();
  }

  private static String peekModel(Path input) {
    Path f = Files.isDirectory(input) ? input.resolve("conversation.jsonl") : input;
    if (!Files.isRegularFile(f)) {
      return null;
    }
    try (InputStream raw = Files.newInputStream(f);
        InputStream in =
            f.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
      byte[] head = in.readNBytes(PEEK);
      Matcher m = MODEL.matcher(new String(head, StandardCharsets.UTF_8));
      return m.find() ? m.group(1) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
