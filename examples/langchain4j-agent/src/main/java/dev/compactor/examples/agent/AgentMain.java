package dev.compactor.examples.agent;

import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.Compactor;
import dev.compactor.langchain4j.CompactingChatMemory;
import dev.compactor.langchain4j.CompactingChatMemoryProvider;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A LangChain4j agent that answers questions about the files of a directory with two tools, its
 * memory a Compactor {@link CompactingChatMemory} instead of a window that forgets. Works against
 * any OpenAI-compatible server.
 *
 * <pre>
 * java -cp ... dev.compactor.examples.agent.AgentMain --base-url http://localhost:11434/v1 \
 *     --model qwen3 --dir . --store sqlite:agent.db "What is in pom.xml?"
 * </pre>
 *
 * Questions are the arguments after the options, or the lines of standard input. With {@code
 * --store} (a SQLite path or a PostgreSQL URL) the conversation outlives the process: run it again
 * with the same store and session and it continues.
 */
public final class AgentMain {
  private AgentMain() {}

  interface Assistant {
    @SystemMessage(
        "You answer questions about the files of one directory. Use the tools to list and read"
            + " them. Answer briefly.")
    String chat(@MemoryId String session, @UserMessage String question);
  }

  /** The agent's tools: list and read files below one directory. */
  public static final class FileTools {
    private final Path root;

    public FileTools(Path root) {
      this.root = root.toAbsolutePath().normalize();
    }

    @Tool("Lists the files of the directory, one relative path a line")
    public String listFiles() throws IOException {
      try (Stream<Path> files = Files.walk(root, 3)) {
        return String.join(
            "\n",
            files
                .filter(Files::isRegularFile)
                .map(p -> root.relativize(p).toString())
                .filter(p -> !p.startsWith(".") && !p.contains("/."))
                .sorted()
                .limit(200)
                .toList());
      }
    }

    @Tool("Reads a file of the directory")
    public String readFile(@P("the file's path relative to the directory") String path)
        throws IOException {
      Path file = root.resolve(path).normalize();
      if (!file.startsWith(root) || !Files.isRegularFile(file)) {
        return "no such file: " + path;
      }
      String text = Files.readString(file, StandardCharsets.UTF_8);
      return text.length() > 20_000 ? text.substring(0, 20_000) + "\n[cut at 20,000 chars]" : text;
    }
  }

  public static void main(String[] args) {
    System.exit(run(args, System.in, System.out, System.err));
  }

  /** Runs the agent; the exit code (0 ok, 2 bad usage, 1 failure). */
  public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("--base-url", "https://api.openai.com/v1");
    o.put("--api-key", System.getenv().getOrDefault("OPENAI_API_KEY", "none"));
    o.put("--model", "gpt-4o-mini");
    o.put("--budget", "0.5");
    o.put("--dir", ".");
    o.put("--session", "default");
    o.put("--store", null);
    o.put("--compactor-model", null);
    List<String> questions = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help")) {
        out.println(
            "usage: AgentMain [--base-url URL] [--api-key KEY] [--model NAME] [--budget B]"
                + " [--dir DIR] [--store DB] [--session ID] [--compactor-model provider/model]"
                + " [QUESTION...]");
        return 0;
      }
      String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (name.startsWith("--")) {
        if (!o.containsKey(name)) {
          err.println("unknown option " + name + " (see --help)");
          return 2;
        }
        String value;
        if (a.contains("=")) {
          value = a.substring(a.indexOf('=') + 1);
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          err.println("option " + name + " needs a value");
          return 2;
        }
        o.put(name, value);
      } else {
        questions.add(a);
      }
    }
    String model = o.get("--model");
    String catalogName =
        o.get("--compactor-model") != null
            ? o.get("--compactor-model")
            : (model.contains("/") ? model : "openai/" + model);
    Compactor compactor;
    try {
      compactor = Compactor.forModel(catalogName).budget(o.get("--budget")).reminder(false).build();
    } catch (RuntimeException e) {
      err.println(e.getMessage());
      return 2;
    }
    OpenAiChatModel chatModel =
        OpenAiChatModel.builder()
            .baseUrl(o.get("--base-url"))
            .apiKey(o.get("--api-key"))
            .modelName(model)
            .timeout(Duration.ofMinutes(2))
            .build();
    ConversationStore store = null;
    try {
      if (o.get("--store") != null) {
        store = ConversationStore.open(o.get("--store"));
      }
      CompactingChatMemoryProvider.Builder memories =
          CompactingChatMemoryProvider.builder().compactor(compactor);
      if (store != null) {
        memories.store(store);
      }
      try (CompactingChatMemoryProvider provider = memories.build()) {
        Assistant assistant =
            AiServices.builder(Assistant.class)
                .chatModel(chatModel)
                .chatMemoryProvider(
                    provider) // was: id -> MessageWindowChatMemory.withMaxMessages(20)
                .tools(new FileTools(Path.of(o.get("--dir"))))
                .build();
        String session = o.get("--session");
        if (questions.isEmpty()) {
          BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
          for (String line; (line = r.readLine()) != null; ) {
            if (!line.isBlank()) {
              answer(assistant, provider.get(session), session, line, out, err);
            }
          }
        } else {
          for (String q : questions) {
            answer(assistant, provider.get(session), session, q, out, err);
          }
        }
      }
      return 0;
    } catch (IOException | RuntimeException e) {
      err.println("failed: " + e.getMessage());
      return 1;
    } finally {
      if (store != null) {
        store.close();
      }
    }
  }

  private static void answer(
      Assistant assistant,
      CompactingChatMemory memory,
      String session,
      String question,
      PrintStream out,
      PrintStream err) {
    out.println(assistant.chat(session, question));
    err.printf(
        "[context %d tokens of %d; view %d messages, log %d]%n",
        memory.tokens(),
        memory.session().compactor().budget().tokens(),
        memory.messages().size(),
        memory.history().size());
  }
}
