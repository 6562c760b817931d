package dev.compactor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code compactor providers}: the strategies {@code compact --strategy} can use. */
@Command(
    name = "providers",
    mixinStandardHelpOptions = true,
    description = {
      "Lists the compaction strategies compact --strategy can use: the bundled ones and those"
          + " of plugin jars on the plugin path (--plugin-path, else $COMPACTOR_PLUGIN_PATH),"
          + " with the class and where it comes from (bundled, or the plugin jar)."
    })
final class ProvidersCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @ParentCommand CompactorCommand parent;

  @Mixin PluginOptions plugins = new PluginOptions();

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  /**
   * One strategy.
   *
   * @param name the name {@code --strategy} takes
   * @param aliasOf the provider an alias stands for, or null
   * @param className the provider's class
   * @param source {@code bundled}, or the plugin jar it comes from
   */
  record Provider(String name, String aliasOf, String className, String source) {}

  /** What {@code providers --json} prints. */
  record Listing(List<Provider> providers) {}

  @Override
  public Integer call() throws Exception {
    Map<String, String> env = CompactorCommand.envOf(parent);
    ProviderRegistry registry = plugins.registry(env);
    List<Provider> out = new ArrayList<>();
    for (String name : registry.list()) {
      ContextProvider p = registry.get(name);
      String aliasOf = p.name().equals(name) ? null : p.name();
      out.add(new Provider(name, aliasOf, p.getClass().getName(), PluginOptions.origin(p)));
    }
    PrintWriter w = spec.commandLine().getOut();
    if (json) {
      w.println(
          new ObjectMapper()
              .enable(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(new Listing(out)));
    } else {
      int width = out.stream().mapToInt(p -> p.name().length()).max().orElse(4);
      for (Provider p : out) {
        w.printf(
            "%-" + width + "s  %s%n",
            p.name(),
            p.aliasOf() != null
                ? "alias of " + p.aliasOf()
                : p.className() + " (" + p.source() + ")");
      }
    }
    w.flush();
    return 0;
  }
}
