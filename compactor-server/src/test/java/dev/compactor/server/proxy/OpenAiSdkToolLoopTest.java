package dev.compactor.server.proxy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link SdkToolLoopTest} with the official OpenAI Java SDK's client on the proxy (base URL {@code
 * http://127.0.0.1:PORT/v1}, the client's own key, a 6,000-token budget), for the Chat Completions
 * and the Responses loops.
 */
abstract class OpenAiSdkToolLoopTest extends SdkToolLoopTest {
  static final String CLIENT_KEY = "sk-client-key";

  OpenAIClient client;

  @BeforeEach
  void startClient() {
    client =
        OpenAIOkHttpClient.builder()
            .baseUrl(f.baseUrl() + "/v1")
            .apiKey(CLIENT_KEY)
            .maxRetries(0)
            .putHeader("X-Compactor-Budget", "6000")
            .build();
  }

  @AfterEach
  void stopClient() {
    client.close();
  }
}
