package io.sharegpu.kubectl;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Completion for {@code kubectl sharegpu <TAB>}: kubectl (1.26 and later) runs the executable
 * {@code kubectl_complete-sharegpu} with the words typed after the plugin name, the last one being
 * the word to complete, and reads Cobra's answer: one candidate per line, then {@code :4} (no file
 * completion). For example {@code nodes -o w} gives {@code wide} and {@code :4}; {@code c} gives
 * {@code completion}, {@code cordon}.
 */
final class Completion {

  /** Cobra's ShellCompDirectiveNoFileComp. */
  static final String NO_FILES = ":4";

  private Completion() {}

  static List<String> complete(CommandLine root, List<String> words) {
    List<String> typed = words.isEmpty() ? List.of("") : words;
    String partial = typed.get(typed.size() - 1);
    CommandSpec spec = root.getCommandSpec();
    OptionSpec pending = null;
    for (String w : typed.subList(0, typed.size() - 1)) {
      if (pending != null) {
        pending = null;
        continue;
      }
      CommandLine sub = spec.subcommands().get(w);
      if (sub != null) {
        spec = sub.getCommandSpec();
        continue;
      }
      OptionSpec option = spec.findOption(w);
      if (option != null && option.arity().max() > 0 && !w.contains("=")) {
        pending = option;
      }
    }
    List<String> candidates = new ArrayList<>();
    if (pending != null) {
      if (pending.completionCandidates() != null) {
        pending.completionCandidates().forEach(candidates::add);
      }
    } else if (partial.startsWith("-")) {
      for (OptionSpec o : spec.options()) {
        if (!o.hidden()) {
          candidates.add(o.longestName());
        }
      }
    } else {
      spec.subcommands()
          .forEach(
              (name, sub) -> {
                if (!sub.getCommandSpec().usageMessage().hidden()) {
                  candidates.add(name);
                }
              });
    }
    List<String> out = new ArrayList<>();
    for (String c : candidates) {
      if (c.startsWith(partial) && !out.contains(c)) {
        out.add(c);
      }
    }
    out.add(NO_FILES);
    return out;
  }
}
