package dev.compactor.chat.testing;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.StreamListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * An in-process model for store and concurrency tests: answers "echo: <last user text>" (or what
 * the responder says) with usage of 10 input tokens per message and 5 output tokens, and records
 * every request.
 */
public final class FakeChatModel implements ChatModel {
  private final String model;
  private final ModelApi api;
  private final List<ChatRequest> requests = Collections.synchronizedList(new ArrayList<>());
  private volatile Function<ChatRequest, String> responder = FakeChatModel::echo;

  public FakeChatModel(String model, ModelApi api) {
    this.model = model;
    this.api = api;
  }

  public FakeChatModel respond(Function<ChatRequest, String> responder) {
    this.responder = responder;
    return this;
  }

  public List<ChatRequest> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  public static String echo(ChatRequest r) {
    for (int i = r.messages().size() - 1; i >= 0; i--) {
      if (r.messages().get(i).role() == Role.USER) {
        return "echo: " + r.messages().get(i).content();
      }
    }
    return "echo: (nothing)";
  }

  @Override
  public String provider() {
    return "openai";
  }

  @Override
  public String model() {
    return model;
  }

  @Override
  public ModelApi api() {
    return api;
  }

  @Override
  public ChatResponse chat(ChatRequest request) {
    requests.add(request);
    Usage usage = new Usage(10L * request.messages().size(), 5, 0, 0, 0);
    Message reply =
        Message.builder(Role.ASSISTANT)
            .content(responder.apply(request))
            .metadata(new MessageMetadata(model, "openai", usage, null, null))
            .build();
    return new ChatResponse(reply, usage, FinishReason.STOP, "stop", null, null, model);
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener) {
    return chat(request);
  }
}
