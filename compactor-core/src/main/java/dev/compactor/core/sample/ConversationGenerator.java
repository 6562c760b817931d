package dev.compactor.core.sample;

import dev.compactor.core.Bounds;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Generates realistic, valid agent conversations from a seed: a coding agent reading files, running
 * tests, fixing bugs. Used for the shipped sample, for property tests and by plugin authors to test
 * their providers. The same seed and options always give the same conversation (ids, text and
 * timestamps included).
 *
 * <p>Every generated conversation passes {@link dev.compactor.core.view.ViewValidator}; with {@link
 * Options#pendingLastCall} the last assistant message has calls without results (the pending last
 * turn, which is valid).
 */
public final class ConversationGenerator {

  /**
   * Shape of the generated conversation.
   *
   * @param turns agent steps (an assistant message with its tool results, or a prose answer)
   * @param parallelCallRate probability that a step makes 2-4 parallel calls
   * @param thinkingRate probability that an assistant message has a reasoning block
   * @param pinnedRate probability that a user message is pinned
   * @param hugeOutputRate probability that a tool output is huge (thousands of lines)
   * @param unicode mix non-ASCII text (accents, CJK, emoji) into messages
   * @param pendingLastCall end with an assistant message whose calls have no results yet
   * @param userEvery a new user message every this many steps
   */
  public record Options(
      int turns,
      double parallelCallRate,
      double thinkingRate,
      double pinnedRate,
      double hugeOutputRate,
      boolean unicode,
      boolean pendingLastCall,
      int userEvery) {
    public Options {
      Bounds.atLeast(0, turns, "turns");
      Bounds.atLeast(1, userEvery, "userEvery");
    }

    /** A typical agent session of the given length. */
    public static Options agentSession(int turns) {
      return new Options(turns, 0.15, 0.3, 0.05, 0.05, false, false, 12);
    }

    /** Every feature turned on, for property tests. */
    public static Options stress(int turns) {
      return new Options(turns, 0.3, 0.4, 0.1, 0.1, true, false, 5);
    }

    public Options withPendingLastCall(boolean pending) {
      return new Options(
          turns,
          parallelCallRate,
          thinkingRate,
          pinnedRate,
          hugeOutputRate,
          unicode,
          pending,
          userEvery);
    }
  }

  private static final String[] FILES = {
    "src/main/java/com/acme/billing/InvoiceService.java",
    "src/main/java/com/acme/billing/TaxCalculator.java",
    "src/test/java/com/acme/billing/InvoiceServiceTest.java",
    "src/main/resources/application.yml",
    "pom.xml",
    "README.md",
    "src/main/java/com/acme/billing/LineItem.java",
    "docs/rounding.md"
  };
  private static final String[] ERRORS = {
    "java.lang.NullPointerException: Cannot invoke \"LineItem.price()\" because \"item\" is null",
    "org.opentest4j.AssertionFailedError: expected: <107.10> but was: <107.09>",
    "java.lang.ArithmeticException: Non-terminating decimal expansion",
    "ERROR: relation \"invoices\" does not exist"
  };
  private static final String[] REQUESTS = {
    "The invoice totals are off by a cent for some customers. Find out why and fix it.",
    "Add a test for invoices with zero line items.",
    "Tax should be rounded per line, not on the total. Please change that and update the docs.",
    "Run the whole test suite and tell me what still fails.",
    "Refactor TaxCalculator so the rate comes from configuration.",
    "Why does the build print a deprecation warning? Fix it if it is easy."
  };
  private static final String[] PROSE = {
    "I looked at how the totals are computed.",
    "The rounding happens after summing, which explains the one-cent drift.",
    "I decided to use BigDecimal with HALF_EVEN rounding per line item.",
    "The test suite now passes except for the integration test that needs a database.",
    "Next I will update the documentation so the rounding rule is written down.",
    "Note: the configuration key is billing.tax.rate and defaults to 0.2.",
    "This change keeps the public API of InvoiceService unchanged.",
    "I will not touch the legacy exporter, since it is scheduled for removal.",
    "The failure was caused by a null line item coming from the CSV import.",
    "As a result, invoices with zero items now total exactly 0.00."
  };
  private static final String[] UNICODE = {
    "Kunde: Müller & Søn — Rechnung №42",
    "税率は20%です",
    "✅ tests green 🎉",
    "naïve café résumé",
    "Ελληνικά κείμενο"
  };

  private final Random random;
  private final Options options;
  private Instant clock = Instant.parse("2026-01-05T09:00:00Z");
  private int nextId;
  private int nextCall;

  private ConversationGenerator(long seed, Options options) {
    this.random = new Random(seed);
    this.options = options;
  }

  /** Generates one conversation. */
  public static List<Message> generate(long seed, Options options) {
    return new ConversationGenerator(seed, options).run();
  }

  private List<Message> run() {
    List<Message> out = new ArrayList<>();
    out.add(
        msg(Role.SYSTEM)
            .content(
                "You are a careful coding agent working in a Java repository. Use the tools to"
                    + " read files and run commands. Keep answers short.")
            .build());
    out.add(msg(Role.USER).content(pick(REQUESTS)).build());
    for (int step = 0; step < options.turns(); step++) {
      boolean last = step == options.turns() - 1;
      if (step > 0 && step % options.userEvery() == 0) {
        out.add(
            msg(Role.USER)
                .content(pick(REQUESTS) + unicodeSuffix())
                .pinned(random.nextDouble() < options.pinnedRate())
                .build());
      }
      if (random.nextDouble() < 0.25 && !(last && options.pendingLastCall())) {
        out.add(assistantProse());
        continue;
      }
      int calls = random.nextDouble() < options.parallelCallRate() ? 2 + random.nextInt(3) : 1;
      List<ToolCall> toolCalls = new ArrayList<>();
      for (int c = 0; c < calls; c++) {
        toolCalls.add(toolCall());
      }
      Message.Builder a = msg(Role.ASSISTANT).toolCalls(toolCalls).content(shortIntent());
      if (random.nextDouble() < options.thinkingRate()) {
        a.reasoning(List.of(thinking()));
      }
      a.metadata(new MessageMetadata("openai/gpt-4o", "openai", null, null, Map.of()));
      out.add(a.build());
      if (last && options.pendingLastCall()) {
        break;
      }
      // Results in an order that need not match the calls (parallel results arrive in any order).
      List<ToolCall> order = new ArrayList<>(toolCalls);
      java.util.Collections.shuffle(order, random);
      for (ToolCall c : order) {
        out.add(msg(Role.TOOL).toolCallId(c.id()).content(toolOutput(c)).build());
      }
    }
    if (!options.pendingLastCall()) {
      out.add(assistantProse());
    }
    return out;
  }

  private Message.Builder msg(Role role) {
    clock = clock.plus(Duration.ofSeconds(1 + random.nextInt(40)));
    return Message.builder(role).id(String.format("m%05d", nextId++)).timestamp(clock);
  }

  private ToolCall toolCall() {
    String id = String.format("call_%05d", nextCall++);
    int kind = random.nextInt(4);
    return switch (kind) {
      case 0 -> new ToolCall(id, "read_file", "{\"path\":\"" + pick(FILES) + "\"}");
      case 1 -> new ToolCall(id, "shell", "{\"command\":\"mvn -q test\"}");
      case 2 -> new ToolCall(id, "shell", "{\"command\":\"grep -rn \\\"round\\\" src\"}");
      default ->
          new ToolCall(
              id,
              "edit_file",
              "{\"path\":\""
                  + pick(FILES)
                  + "\",\"old\":\"total.setScale(2)\",\"new\":\"total.setScale(2,"
                  + " RoundingMode.HALF_EVEN)\"}");
    };
  }

  private String toolOutput(ToolCall c) {
    boolean huge = random.nextDouble() < options.hugeOutputRate();
    int lines = huge ? 300 + random.nextInt(900) : 5 + random.nextInt(60);
    StringBuilder sb = new StringBuilder();
    switch (c.name()) {
      case "read_file" -> {
        sb.append("package com.acme.billing;\n\nimport java.math.BigDecimal;\n\n");
        for (int i = 0; i < lines; i++) {
          sb.append("  BigDecimal line")
              .append(i)
              .append(" = item.price().multiply(qty).setScale(2); // rate ")
              .append(random.nextInt(100))
              .append('\n');
        }
      }
      case "shell" -> {
        sb.append("[INFO] Scanning for projects...\n");
        for (int i = 0; i < lines; i++) {
          sb.append("[INFO] Running com.acme.billing.Test")
              .append(i % 17)
              .append(" ... ok (")
              .append(random.nextInt(900))
              .append(" ms)\n");
        }
        if (random.nextDouble() < 0.3) {
          sb.append("[ERROR] ").append(pick(ERRORS)).append('\n');
          sb.append("\tat com.acme.billing.InvoiceService.total(InvoiceService.java:")
              .append(40 + random.nextInt(80))
              .append(")\n");
        }
        sb.append("[INFO] BUILD ").append(random.nextBoolean() ? "SUCCESS" : "FAILURE");
      }
      default -> sb.append("Edited ").append(c.arguments().length()).append(" bytes.");
    }
    sb.append(unicodeSuffix());
    return sb.toString();
  }

  private Message assistantProse() {
    StringBuilder sb = new StringBuilder();
    int n = 3 + random.nextInt(10);
    for (int i = 0; i < n; i++) {
      sb.append(pick(PROSE)).append(' ');
    }
    if (random.nextDouble() < 0.3) {
      sb.append("\n\n```java\nBigDecimal total = items.stream()\n")
          .append("    .map(i -> i.price().setScale(2, RoundingMode.HALF_EVEN))\n")
          .append("    .reduce(BigDecimal.ZERO, BigDecimal::add);\n```\n");
    }
    sb.append(unicodeSuffix());
    Message.Builder b = msg(Role.ASSISTANT).content(sb.toString().strip());
    if (random.nextDouble() < options.thinkingRate()) {
      b.reasoning(List.of(thinking()));
    }
    return b.build();
  }

  private String shortIntent() {
    return random.nextDouble() < 0.4 ? "" : "Let me check " + pick(FILES) + ".";
  }

  private ReasoningBlock thinking() {
    return new ReasoningBlock(
        "thinking",
        "The user wants correct totals. "
            + pick(PROSE)
            + " I should verify with the tests before answering.",
        "sig-" + Integer.toHexString(random.nextInt()));
  }

  private String unicodeSuffix() {
    return options.unicode() && random.nextDouble() < 0.5 ? " " + pick(UNICODE) : "";
  }

  private String pick(String[] values) {
    return values[random.nextInt(values.length)];
  }
}
