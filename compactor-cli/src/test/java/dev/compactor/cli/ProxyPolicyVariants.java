package dev.compactor.cli;

import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.replay.ProgressListener;
import dev.compactor.replay.ReplayOptions;
import dev.compactor.replay.ReplayReport;
import dev.compactor.replay.ReplayRunner;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;
import dev.compactor.replay.ReplayStrategies;
import dev.compactor.replay.ReplayStrategy;
import dev.compactor.replay.report.ScoreTable;
import dev.compactor.server.proxy.ProxyPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A quick look at {@link ProxyPolicy} variants without HTTP: each variant is a replay strategy that
 * does what the proxy does on each request (its stored view plus the client's new messages,
 * compacted by the policy when at the budget; the compacted view kept for the next requests),
 * in-process, so that a whole corpus takes seconds instead of the real proxy's minutes. The chosen
 * variant is then measured through the real proxy ({@code compactor replay --through-proxy}).
 *
 * <pre>
 * java -cp &lt;compactor-cli test classpath&gt; dev.compactor.cli.ProxyPolicyVariants \
 *     ../shared/corpus/mini-swe-agent 1.0 0.8 0.6 0.6:0.10 0.6+shortcut
 * </pre>
 *
 * <p>A variant is a target, or {@code target:share} with the summaries' identifier index share
 * ({@link ProxyPolicy#withIndexShare}; without it the library's default share). As the proxy does
 * by default ({@link ProxyPolicy#plansBelowBudget}), the policy runs on every request, so that the
 * cost planner may mask early below the budget; a variant ending in {@code +shortcut} runs it only
 * on a conversation's first request, on the request after a compaction and at the budget, as the
 * proxy does with planning off (below the budget it knows from the previous request's count that
 * nothing is due).
 */
public final class ProxyPolicyVariants {
  private ProxyPolicyVariants() {}

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    List<ReplayStrategy> strategies = new ArrayList<>();
    strategies.add(ReplayStrategies.global().get("none"));
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      boolean every = !a.endsWith("+shortcut");
      String v = every ? a : a.substring(0, a.length() - "+shortcut".length());
      int colon = v.indexOf(':');
      ProxyPolicy p =
          colon < 0
              ? ProxyPolicy.of(Double.parseDouble(v))
              : ProxyPolicy.of(Double.parseDouble(v.substring(0, colon)))
                  .withIndexShare(Double.parseDouble(v.substring(colon + 1)));
      p = p.withPlanningBelowBudget(every);
      strategies.add(new Emulated(p, a));
    }
    ReplayOptions options = ReplayOptions.scorecard();
    ReplayReport r =
        new ReplayRunner(options)
            .run(ReplayCommand.expand(List.of(dir)), strategies, ProgressListener.NONE);
    System.out.print(ScoreTable.text(r.totals()));
  }

  /** What the proxy does on each request, in-process. */
  static final class Emulated implements ReplayStrategy {
    private final ProxyPolicy policy;
    private final String label;

    Emulated(ProxyPolicy policy, String label) {
      this.policy = policy;
      this.label = label;
    }

    @Override
    public String name() {
      return "proxy-" + label;
    }

    @Override
    public String description() {
      return "the proxy's policy in-process: " + policy;
    }

    @Override
    public ReplaySession start(ReplaySetup setup) {
      TokenCounter counter = setup.counter();
      Compactor.Builder builder =
          Compactor.forModel(
                  "openai/" + setup.model().substring(setup.model().lastIndexOf('/') + 1))
              .counter(counter)
              .budget(Long.toString(setup.budgetTokens()))
              .environment(java.util.Map.of());
      Compactor compactor = builder.build();
      Compactor deeper = policy.deeper(builder, compactor);
      return new ReplaySession() {
        List<Message> view = new ArrayList<>();
        boolean full = true; // the first request, or the one after a compaction

        @Override
        public void append(Message recorded) {
          if (!recorded.uiOnly()) {
            view.add(recorded);
          }
        }

        @Override
        public void afterTurn() {}

        @Override
        public List<Message> view() {
          if (!policy.plansBelowBudget()
              && !full
              && counter.countMessages(view) < compactor.budget().tokens()) {
            return List.copyOf(view); // below the budget: the proxy's shortcut
          }
          Compactor.Result r = policy.compact(compactor, deeper, view);
          full = r.compacted();
          if (r.outcome() instanceof CompactionOutcome.Compacted c) {
            List<Message> next = new ArrayList<>(r.messages());
            String s = c.report().strategy();
            setup.events().compacted(s, c.report().tokensBefore(), c.report().tokensAfter());
            if (s.equals("summarize")) {
              Set<Message> now = Collections.newSetFromMap(new IdentityHashMap<>());
              now.addAll(next);
              Set<Message> old = Collections.newSetFromMap(new IdentityHashMap<>());
              old.addAll(view);
              long in = 0;
              long out = 0;
              for (Message m : view) {
                in += now.contains(m) ? 0 : counter.countMessage(m);
              }
              for (Message m : next) {
                out += old.contains(m) ? 0 : counter.countMessage(m);
              }
              setup.events().summaryCall(in, out);
            }
            view = next;
          }
          return List.copyOf(view);
        }
      };
    }
  }
}
