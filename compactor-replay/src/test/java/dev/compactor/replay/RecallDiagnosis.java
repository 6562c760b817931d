package dev.compactor.replay;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.imports.Importers;
import dev.compactor.replay.internal.Facts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A diagnostic, not a test: replays files under one strategy (default {@code auto}) and attributes
 * every needed fact the view misses to what happened to the messages it came from: masked (a mask
 * placeholder replaced the source), trimmed (a trim stub, cut or extract replaced it), summarized
 * (the source is no longer in the view: a checkpoint covers it), or other. Prints counts by cause,
 * by the source's role and by the fact's shape, and a sample of missed facts.
 *
 * <pre>
 * java -cp ... dev.compactor.replay.RecallDiagnosis [--strategy auto] [--samples N] FILE|DIR...
 * </pre>
 *
 * <p>With the environment variable {@code RECALL_EVERY} set, every miss is printed (up to {@code
 * --samples} lines), and a miss from a masked output also with the output's size, the fact's
 * position among its identifiers and the placeholder's text.
 */
public final class RecallDiagnosis {
  private RecallDiagnosis() {}

  private static final boolean DUMP = System.getenv("RECALL_DUMP") != null;
  private static final boolean EVERY = System.getenv("RECALL_EVERY") != null;

  public static void main(String[] args) throws Exception {
    String strategyName = "auto";
    int samples = 40;
    List<Path> given = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--strategy" -> strategyName = args[++i];
        case "--samples" -> samples = Integer.parseInt(args[++i]);
        default -> given.add(Path.of(args[i]));
      }
    }
    List<Path> files = ReplayRunner.expand(given);
    ReplayStrategy strategy = VariantRun.strategy(strategyName);
    ReplayOptions options = ReplayOptions.scorecard();
    TokenCounter base = options.counter();
    Map<String, Integer> byCause = new TreeMap<>();
    Map<String, Integer> byKind = new TreeMap<>();
    Map<String, Integer> byRole = new TreeMap<>();
    Map<String, Integer> byFile = new TreeMap<>();
    long needed = 0;
    long missed = 0;
    List<String> sample = new ArrayList<>();
    for (Path f : files) {
      List<ImportedConversation> cs;
      try {
        cs = Importers.read(f).conversations();
      } catch (RuntimeException e) {
        System.err.println("skipped " + f + ": " + e.getMessage());
        continue;
      }
      for (ImportedConversation c : cs) {
        RecordedConversation rc = RecordedConversation.prepare(f.toString(), c, options);
        Result r = replay(rc, strategy, base, samples - sample.size());
        needed += r.needed;
        missed += r.missed.size();
        for (Miss m : r.missed) {
          byCause.merge(m.cause, 1, Integer::sum);
          byKind.merge(m.cause + " / " + kind(m.fact), 1, Integer::sum);
          byRole.merge(m.cause + " / " + m.role, 1, Integer::sum);
        }
        if (!r.missed.isEmpty()) {
          byFile.merge(f.getFileName().toString(), r.missed.size(), Integer::sum);
        }
        sample.addAll(r.samples);
      }
    }
    System.out.printf(
        "needed %d, missed %d, recall %.4f%n", needed, missed, 1 - missed / (double) needed);
    print("by cause", byCause);
    print("by cause / source role (newest source)", byRole);
    print("by cause / fact shape", byKind);
    print("by file", byFile);
    System.out.println("samples:");
    sample.forEach(s -> System.out.println("  " + s));
  }

  private static void print(String title, Map<String, Integer> m) {
    System.out.println(title + ":");
    m.entrySet().stream()
        .sorted((a, b) -> b.getValue() - a.getValue())
        .forEach(e -> System.out.printf("  %6d  %s%n", e.getValue(), e.getKey()));
  }

  static String kind(String fact) {
    if (fact.matches("\\d{4,}")) {
      return "number";
    }
    if (fact.endsWith("Error") || fact.endsWith("Exception")) {
      return "error";
    }
    if (fact.contains("/") || fact.matches(".*\\.[A-Za-z]{1,5}")) {
      return "path/file";
    }
    if (fact.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      return "name";
    }
    return "quoted/other";
  }

  record Miss(String fact, String cause, String role) {}

  record Result(long needed, List<Miss> missed, List<String> samples) {}

  private static Result replay(
      RecordedConversation conversation, ReplayStrategy strategy, TokenCounter base, int samples) {
    TokenCounter counter = new RunCounter(base);
    ReplayClock clock = new ReplayClock();
    ReplaySession session = strategy.start(conversation.setup(counter, clock, ReplayEvents.NONE));
    List<Message> messages = conversation.messages();
    Map<String, List<Integer>> sources = new HashMap<>();
    List<Miss> missed = new ArrayList<>();
    List<String> out = new ArrayList<>();
    long needed = 0;
    boolean turnOpen = false;
    int call = 0;
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      boolean isCall = call < conversation.callCount() && conversation.callIndex(call) == i;
      if (isCall) {
        if (turnOpen) {
          session.afterTurn();
          turnOpen = false;
        }
        List<Message> view = List.copyOf(session.view());
        if (DUMP && call == conversation.callCount() - 1) {
          System.err.println("=== last view of " + conversation.source());
          for (Message v : view) {
            System.err.println(
                "--- " + v.role() + " " + v.id() + " (" + counter.countMessage(v) + " tokens)");
            System.err.println(
                v.content().length() > 3000 && !v.id().value().startsWith("checkpoint")
                    ? v.content().substring(0, 3000) + "…"
                    : v.content());
          }
        }
        List<String> need = conversation.needed(call);
        needed += need.size();
        Set<String> present = new HashSet<>();
        Map<String, Message> byId = new HashMap<>();
        Map<String, Message> rewritten = new HashMap<>();
        for (Message v : view) {
          Set<String> f = conversation.recordedFacts(v);
          present.addAll(f != null ? f : Facts.of(v));
          String id = v.id().value();
          byId.put(id, v);
          int tilde = id.indexOf('~');
          if (tilde > 0) {
            rewritten.put(id.substring(0, tilde), v);
          }
        }
        for (String fact : need) {
          if (present.contains(fact)) {
            continue;
          }
          List<Integer> src = sources.getOrDefault(fact, List.of());
          String cause = "other";
          String role = "?";
          int newest = -1;
          for (int j : src) {
            Message s = messages.get(j);
            Message v = rewritten.get(s.id().value());
            String c;
            if (byId.containsKey(s.id().value())) {
              c = "present?";
            } else if (v != null) {
              c = v.id().value().contains("~masked") ? "mask" : "trim";
            } else {
              c = "summary";
            }
            // the most "visible" state wins: a rewritten copy is in the view, an absent one is not
            if (newest < 0 || rank(c) > rank(cause)) {
              cause = c;
            }
            newest = j;
            role = s.role().name().toLowerCase() + (s.hasToolCalls() ? "+calls" : "");
          }
          missed.add(new Miss(fact, cause, role));
          if (EVERY && cause.equals("mask")) {
            Message orig = null;
            Message ph = null;
            for (int j : src) {
              Message v = rewritten.get(messages.get(j).id().value());
              if (v != null && v.id().value().contains("~masked")) {
                orig = messages.get(j);
                ph = v;
              }
            }
            if (orig != null) {
              List<String> ids = dev.compactor.core.compaction.text.Identifiers.of(orig);
              out.add(
                  String.format(
                      "    MASK %s: orig %d tokens, %d identifiers, fact at %d, listable %b,"
                          + " placeholder %d tokens (%d chars)%s",
                      fact,
                      counter.countText(orig.content()),
                      ids.size(),
                      ids.indexOf(fact),
                      dev.compactor.core.compaction.text.Identifiers.listable(fact),
                      counter.countText(ph.content()),
                      ph.content().length(),
                      ph.content().length() < 600 ? " :: " + ph.content() : ""));
            }
          }
          if (out.size() < samples && (EVERY || missed.size() % 10 == 1)) { // every tenth miss
            out.add(
                String.format(
                    "%s call %d: %-40s %-8s from %s %d msgs back (%s)",
                    Path.of(conversation.source()).getFileName(),
                    call,
                    fact,
                    cause,
                    role,
                    newest < 0 ? -1 : i - newest,
                    messages.get(Math.max(newest, 0)).role() == Role.TOOL ? "tool" : "-"));
          }
        }
        call++;
      }
      for (String fact : conversation.recordedFacts(m)) {
        sources.computeIfAbsent(fact, k -> new ArrayList<>()).add(i);
      }
      clock.advanceTo(m.timestamp());
      session.append(m);
      turnOpen = true;
      if (isCall) {
        session.afterTurn();
        turnOpen = false;
      }
    }
    return new Result(needed, missed, out);
  }

  private static int rank(String cause) {
    return switch (cause) {
      case "present?" -> 4;
      case "trim" -> 3;
      case "mask" -> 2;
      case "summary" -> 1;
      default -> 0;
    };
  }
}
