package dev.compactor.examples.chat;

import dev.compactor.springai.CompactingChatMemory;
import dev.compactor.springai.CompactingMemoryAdvisor;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * A Spring Boot chat on the command line: Spring AI's {@link ChatClient} with a tool, its memory
 * the Compactor starter's {@link CompactingChatMemory} (auto-configured from {@code compactor.*}),
 * against any OpenAI-compatible server.
 *
 * <pre>
 * java -jar ... --base-url=http://localhost:11434 --model=qwen3 --compactor.store=sqlite:chat.db \
 *     "What day is it?"
 * </pre>
 *
 * Messages are the non-option arguments, or the lines of standard input.
 */
@SpringBootApplication
public class ChatApp {

  public static void main(String[] args) {
    System.exit(SpringApplication.exit(SpringApplication.run(ChatApp.class, args)));
  }

  /** The model, from {@code base-url}, {@code api-key} and {@code model}. */
  @Bean
  OpenAiChatModel chatModel(
      @Value("${base-url}") String baseUrl,
      @Value("${api-key}") String apiKey,
      @Value("${model}") String model) {
    return OpenAiChatModel.builder()
        .openAiApi(OpenAiApi.builder().baseUrl(baseUrl).apiKey(apiKey).build())
        .defaultOptions(OpenAiChatOptions.builder().model(model).build())
        .build();
  }

  /** The tool. */
  static final class Calendar {
    @Tool(description = "Today's date, ISO-8601")
    String today() {
      return LocalDate.now().toString();
    }
  }

  @Bean
  ChatClient chatClient(OpenAiChatModel model, CompactingMemoryAdvisor memory) {
    return ChatClient.builder(model)
        .defaultSystem("You are a helpful assistant. Answer briefly.")
        .defaultAdvisors(
            // the tool loop outside the model call, so the memory sees tool calls and results
            ToolCallAdvisor.builder().advisorOrder(Ordered.HIGHEST_PRECEDENCE + 300).build(),
            memory) // was: MessageChatMemoryAdvisor.builder(chatMemory).build()
        .defaultTools(new Calendar())
        .build();
  }

  @Bean
  ApplicationRunner chat(
      ChatClient chat,
      CompactingChatMemory memory,
      @Value("${conversation:default}") String conversation) {
    return (ApplicationArguments args) -> {
      List<String> messages = args.getNonOptionArgs();
      if (messages.isEmpty()) {
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
          if (!line.isBlank()) {
            say(chat, memory, conversation, line);
          }
        }
      } else {
        for (String m : messages) {
          say(chat, memory, conversation, m);
        }
      }
    };
  }

  private static void say(
      ChatClient chat, CompactingChatMemory memory, String conversation, String message) {
    String answer =
        chat.prompt()
            .user(message)
            .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, conversation))
            .call()
            .content();
    System.out.println(answer);
    System.err.printf(
        "[context %d tokens; view %d messages, log %d]%n",
        memory.session(conversation).tokens(),
        memory.get(conversation).size(),
        memory.history(conversation).size());
  }
}
