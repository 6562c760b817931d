package dev.compactor.cli;

import dev.compactor.core.Compactor;
import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.ManualCompaction;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.recovery.OverflowRecovery;
import dev.compactor.core.recovery.RecoveryFailedException;
import dev.compactor.core.recovery.RecoveryResult;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.log.store.StoredConversation;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The read-eval-print loop of {@code compactor chat}: each line typed is a message to the model
 * (its answer streamed back) or a command ({@code /compact}, {@code /context}, …). After every
 * answered turn the automatic policy runs, as in any host of the front door: the 90 % reminder once
 * per view, compaction at the budget; a provider that still refuses the context as too long gets
 * the overflow recovery. What Compactor did is shown in status lines, which are never sent.
 *
 * <p>Everything is kept in the conversation directory as it happens (the store forces each message
 * to the device before returning), so the chat can end at any moment and be resumed.
 */
final class ChatRepl {

  /** The model, its client, the budget and the policy of one stretch of the chat. */
  record Engine(
      String model,
      ChatModel client,
      ResolvedBudget budget,
      TokenCounter counter,
      Compactor.Session session,
      PolicyContext ctx,
      String summarizer) {
    Engine {
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(client, "client");
      Objects.requireNonNull(budget, "budget");
      Objects.requireNonNull(counter, "counter");
      Objects.requireNonNull(session, "session");
      Objects.requireNonNull(ctx, "ctx");
    }
  }

  /** Makes an engine: for another model, or with a new budget (persisted for the conversation). */
  interface Engines {
    /**
     * @param model the model ({@code provider/model}, checked)
     * @param budget a new budget to persist, or null to keep the conversation's
     * @throws CompactorException naming the bad value; nothing is persisted then
     */
    Engine create(String model, String budget);
  }

  static final List<String> COMMANDS =
      List.of("/compact", "/context", "/view", "/recover", "/budget", "/model", "/help", "/exit");

  static final String HELP =
      """
      Type a message and press Enter to send it; the answer streams back. Commands:
        /compact                       trim the conversation now (rule-based, no model call)
        /compact trim                  the same
        /compact summarize [TEXT]      replace the older part with a checkpoint summary written
                                       by the model; TEXT adds instructions (e.g. focus on X)
        /compact auto, /compact resume deprecated aliases of trim and summarize
        /context                       where the tokens are: by role, tool outputs, the usage
                                       anchor, the budget and how far the next compaction is
        /view                          what the active view holds (ids for /recover)
        /recover ID                    the original messages behind an id of the view
        /budget [B]                    show the budget, or set it (0.85 of the window, or tokens;
                                       kept for this conversation)
        /model [M]                     show the model, or switch to provider/model
        /help                          this text
        /exit                          end the chat (also Ctrl-D); it is saved as it goes
      Status lines in [brackets] say what Compactor did; they are never sent to the model.
      """;

  private final ChatConsole console;
  private final StoredConversation conv;
  private final String name;
  private final Engines engines;
  private final Clock clock;
  private final OverflowRecovery recovery;
  private Engine engine;
  private boolean turnFailed;

  ChatRepl(
      ChatConsole console,
      StoredConversation conv,
      String name,
      Engine engine,
      Engines engines,
      Clock clock) {
    this.console = console;
    this.conv = conv;
    this.name = name;
    this.engine = engine;
    this.engines = engines;
    this.clock = clock;
    this.recovery = new OverflowRecovery(clock, conv.journal());
  }

  /** The engine in use. */
  Engine engine() {
    return engine;
  }

  /**
   * Runs until {@code /exit} or the end of the input.
   *
   * @return {@link ChatCommand#EXIT_OK}, or {@link ChatCommand#EXIT_TURN_FAILED} when a model call
   *     failed on the way
   */
  int run() {
    while (true) {
      String line = console.readLine();
      if (line == null) {
        break;
      }
      String s = line.strip();
      if (s.isEmpty()) {
        continue;
      }
      if (s.startsWith("/")) {
        if (!command(s)) {
          break;
        }
        continue;
      }
      turn(line);
    }
    return turnFailed ? ChatCommand.EXIT_TURN_FAILED : ChatCommand.EXIT_OK;
  }

  // ------------------------------------------------------------------ a turn

  /** Sends one message and streams the answer, then runs the automatic policy. */
  void turn(String text) {
    conv.append(
        Message.builder(Role.USER).id(nextId()).content(text).timestamp(clock.instant()).build());
    Engine e = engine;
    ChatRequest template = ChatRequest.builder().messages(conv.activeMessages()).build();
    StringBuilder partial = new StringBuilder();
    StreamListener listener =
        new StreamListener() {
          @Override
          public void onText(String delta) {
            stopWhenInterrupted();
            partial.append(delta);
            console.answer(delta);
          }

          @Override
          public void onReasoning(String delta) {
            stopWhenInterrupted();
            console.reasoning(delta);
          }

          private void stopWhenInterrupted() {
            if (console.interrupted()) {
              throw new Interrupted();
            }
          }

          @Override
          public void onCompacting() {
            console.status("[the provider is compacting the context]");
          }
        };
    RecoveryResult r;
    console.startAnswer();
    try {
      r = recovery.stream(conv, e.client(), template, e.ctx(), listener);
    } catch (Interrupted x) {
      console.endAnswer();
      interrupted(partial.toString());
      return;
    } catch (RecoveryFailedException x) {
      console.endAnswer();
      failed(
          String.format(
              Locale.ROOT,
              "the provider refused the context as too long, and overflow recovery could not make"
                  + " it fit after %d retries: %s. Your message is kept; /compact summarize or a"
                  + " model with a larger window (/model) may help",
              x.report().retries(),
              x.getMessage()));
      return;
    } catch (ModelException x) {
      console.endAnswer();
      failed(
          "model call failed: "
              + x.getMessage()
              + (x.hasPartialOutput() ? " (the answer above was cut off and is not kept)" : "")
              + ". Your message is kept; send another to go on");
      return;
    } catch (CompactorException | IllegalArgumentException x) {
      console.endAnswer();
      failed("model call failed: " + x.getMessage() + ". Your message is kept");
      return;
    }
    console.endAnswer();
    if (r.report().recovered()) {
      AppliedCompaction c = r.report().compaction();
      console.status(
          String.format(
              Locale.ROOT,
              "[the provider refused the context as too long; recovered after %d %s with %s:"
                  + " %,d → %,d tokens, %d → %d messages; view %s]",
              r.report().retries(),
              r.report().retries() == 1 ? "retry" : "retries",
              c.strategy(),
              c.tokensBefore(),
              c.tokensAfter(),
              c.messagesBefore(),
              c.messagesAfter(),
              c.viewId()));
    }
    Message reply = r.response().message();
    conv.append(reply.toBuilder().id(nextId()).build());
    CompactionOutcome o = e.session().afterTurn();
    automatic(o);
    long tokens = e.session().tokens();
    console.status(
        String.format(
            Locale.ROOT,
            "[context %,d of %,d tokens (%d %%)]",
            tokens,
            e.budget().tokens(),
            Math.round(100.0 * tokens / e.budget().tokens())));
  }

  /** Thrown from the stream listener to stop an answer on Ctrl-C. */
  private static final class Interrupted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Interrupted() {
      super("answer interrupted", null, false, false);
    }
  }

  /**
   * Keeps what arrived of an interrupted answer as the assistant's message (so the conversation
   * goes on from what the person saw), marked {@code interrupted} in its metadata.
   */
  private void interrupted(String partial) {
    if (partial.isBlank()) {
      console.status("[answer interrupted before any text arrived; your message is kept]");
      return;
    }
    conv.append(
        Message.builder(Role.ASSISTANT)
            .id(nextId())
            .content(partial)
            .timestamp(clock.instant())
            .metadata(
                new dev.compactor.core.message.MessageMetadata(
                    null, null, null, null, Map.of(INTERRUPTED_KEY, true)))
            .build());
    console.status("[answer interrupted; what arrived is kept]");
  }

  /** Metadata key ({@code metadata.extra}) of an answer stopped with Ctrl-C. */
  static final String INTERRUPTED_KEY = "interrupted";

  private void failed(String message) {
    turnFailed = true;
    console.error("[" + message + "]");
  }

  /** The status line of what the automatic policy did (nothing for NotNeeded). */
  private void automatic(CompactionOutcome o) {
    if (o instanceof CompactionOutcome.Reminded r) {
      console.status(
          String.format(
              Locale.ROOT,
              "[context at %d %% of the budget (%,d of %,d tokens): reminder sent to the model to"
                  + " save durable state before compaction]",
              Math.round(100.0 * r.tokens() / r.budget()),
              r.tokens(),
              r.budget()));
    } else if (o instanceof CompactionOutcome.Compacted c) {
      console.status("[compacted automatically " + describe(c.report()) + "]");
    } else if (o instanceof CompactionOutcome.Failed f) {
      console.error("[automatic compaction with " + f.strategy() + " failed: " + f.reason() + "]");
    } else if (o instanceof CompactionOutcome.Limited l) {
      console.error("[over the budget: " + l.reason() + "]");
    }
  }

  private static String describe(AppliedCompaction c) {
    return String.format(
        Locale.ROOT,
        "with %s: %,d → %,d tokens, %d → %d messages; view %s",
        c.strategy(),
        c.tokensBefore(),
        c.tokensAfter(),
        c.messagesBefore(),
        c.messagesAfter(),
        c.viewId());
  }

  /** {@code m0001}, {@code m0002}, …: short ids that {@code /recover} can be given. */
  private MessageId nextId() {
    int n = conv.master().size() + 1;
    while (true) {
      MessageId id = MessageId.of(String.format(Locale.ROOT, "m%04d", n));
      if (conv.master().get(id).isEmpty()) {
        return id;
      }
      n++;
    }
  }

  // ------------------------------------------------------------------ commands

  /** Runs a command; false to end the chat. */
  boolean command(String line) {
    String word = line.split("\\s+", 2)[0].toLowerCase(Locale.ROOT);
    String arg = line.length() > word.length() ? line.substring(word.length()).strip() : "";
    try {
      switch (word) {
        case "/exit", "/quit" -> {
          return false;
        }
        case "/help", "/?" -> console.print(HELP);
        case "/compact" -> compact(line);
        case "/context" -> console.print(figures().text());
        case "/view" -> console.print(view());
        case "/recover" -> recover(arg);
        case "/budget" -> budget(arg);
        case "/model" -> model(arg);
        default -> console.error("[unknown command " + word + "; /help lists the commands]");
      }
    } catch (CompactorException | IllegalArgumentException e) {
      console.error("[" + e.getMessage() + "]");
    }
    return true;
  }

  ContextFigures figures() {
    return ContextFigures.of(conv, engine.model(), engine.counter(), engine.budget());
  }

  private void compact(String line) {
    ManualCompaction c = ManualCompaction.parse(line);
    c.warning().ifPresent(w -> console.status("[warning: " + w + "]"));
    if (c.strategy().equals(ManualCompaction.SUMMARIZE)) {
      console.status(
          "[summarizing with "
              + (engine.summarizer() == null ? "the model" : engine.summarizer())
              + c.instructions().map(i -> " (instructions: " + i + ")").orElse("")
              + " …]");
    }
    CompactionOutcome o = engine.session().compact(c.strategy(), c.instructions().orElse(null));
    if (o instanceof CompactionOutcome.Compacted done) {
      console.status("[compacted " + describe(done.report()) + "]");
      done.suggestion().ifPresent(s -> console.status("[" + s + "]"));
      done.shortfall().ifPresent(s -> console.status("[still " + s.reason() + "]"));
    } else if (o instanceof CompactionOutcome.NotNeeded n) {
      console.status("[" + n.reason() + "]");
    } else if (o instanceof CompactionOutcome.Limited l) {
      console.error("[" + l.reason() + "]");
    } else if (o instanceof CompactionOutcome.Failed f) {
      console.error("[compaction with " + f.strategy() + " failed: " + f.reason() + "]");
    }
  }

  /** The active view: one line per entry, synthesized ones with what they stand for. */
  String view() {
    View v = conv.activeView();
    List<Message> messages = conv.activeMessages();
    Map<MessageId, List<MessageId>> covers = new HashMap<>();
    for (ViewEntry e : v.entries()) {
      if (e instanceof ViewEntry.Synthesized s) {
        covers.put(s.message().id(), s.covers());
      }
    }
    StringBuilder s =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "view %s (%d of %d views; master log %,d messages): %,d entries%n",
                v.id(),
                conv.views().indexOf(v) + 1,
                conv.views().size(),
                conv.master().size(),
                messages.size()));
    TokenCounter counter = engine.counter();
    for (Message m : messages) {
      List<MessageId> covered = covers.get(m.id());
      String role = m.uiOnly() ? "status" : m.role().wireName();
      String what;
      if (covered != null) {
        what =
            String.format(
                Locale.ROOT,
                "synthesized, stands for %d message(s) %s: ",
                covered.size(),
                span(covered));
      } else if (m.metadata()
          .extra()
          .containsKey(dev.compactor.core.policy.AutoCompactor.REMINDER_KEY)) {
        what = "reminder: ";
      } else {
        what = "";
      }
      s.append(
          String.format(
              Locale.ROOT,
              "  %-14s %-9s %7s  %s%s%n",
              m.id(),
              role,
              m.uiOnly() ? "-" : String.format(Locale.ROOT, "%,d", counter.countMessage(m)),
              what,
              preview(m.content())));
    }
    return s.toString();
  }

  private static String span(List<MessageId> ids) {
    if (ids.isEmpty()) {
      return "";
    }
    return ids.size() == 1 ? ids.get(0).value() : ids.get(0) + " … " + ids.get(ids.size() - 1);
  }

  private static String preview(String content) {
    String one = content.strip().replaceAll("\\s+", " ");
    return one.length() <= 70 ? one : one.substring(0, 69) + "…";
  }

  private void recover(String arg) {
    if (arg.isEmpty()) {
      console.error("[/recover needs the id of a message of the view (/view lists them)]");
      return;
    }
    List<Message> originals = conv.recover(MessageId.of(arg));
    StringBuilder s =
        new StringBuilder(
            String.format(
                Locale.ROOT, "%s stands for %d original message(s):%n", arg, originals.size()));
    for (Message m : originals) {
      s.append(
          String.format(
              Locale.ROOT,
              "--- %s %s%s%n%s%n",
              m.id(),
              m.role().wireName(),
              m.timestamp() == null ? "" : " " + m.timestamp(),
              m.content()));
    }
    console.print(s.toString());
  }

  private void budget(String arg) {
    if (!arg.isEmpty()) {
      engine = engines.create(engine.model(), arg);
    }
    ResolvedBudget b = engine.budget();
    console.print(
        String.format(
            Locale.ROOT,
            "budget %,d tokens (%s); window %,d; the reminder at %,d, compaction at %,d%s",
            b.tokens(),
            BudgetOptions.Budget.of(b).describeSource(),
            b.window(),
            figures().reminderAt(),
            b.tokens(),
            arg.isEmpty() ? "" : "; kept for conversation " + name));
  }

  private void model(String arg) {
    if (!arg.isEmpty()) {
      engine = engines.create(ModelNames.check(arg, "/model"), null);
    }
    console.print(
        String.format(
            Locale.ROOT,
            "model %s; budget %,d tokens (%s)",
            engine.model(),
            engine.budget().tokens(),
            BudgetOptions.Budget.of(engine.budget()).describeSource()));
  }

  /** What the banner says about the conversation. */
  String banner(boolean resumed, Path dir) {
    StringBuilder s =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "[compactor chat: conversation %s (%s), model %s, budget %,d tokens (%s)]%n",
                name,
                resumed ? "resumed" : "new",
                engine.model(),
                engine.budget().tokens(),
                BudgetOptions.Budget.of(engine.budget()).describeSource()));
    s.append("[stored in ").append(dir).append("; /help lists the commands, /exit ends]");
    if (resumed) {
      List<Message> visible = conv.activeMessages().stream().filter(m -> !m.uiOnly()).toList();
      s.append(
          String.format(
              Locale.ROOT,
              "%n[%,d messages in view %s; context %,d tokens]",
              visible.size(),
              conv.activeView().id(),
              engine.session().tokens()));
      for (Message m : visible.subList(Math.max(0, visible.size() - 2), visible.size())) {
        s.append(
            String.format(
                Locale.ROOT, "%n[last %s: %s]", m.role().wireName(), preview(m.content())));
      }
    }
    return s.toString();
  }
}
