package io.sharegpu.kubectl.command;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code completion bash|zsh}: prints a completion script for {@code kubectl-sharegpu} (picocli's
 * AutoComplete; zsh loads it through bashcompinit).
 */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description = {
      "Print a shell completion script (bash or zsh).",
      "  bash: source <(kubectl-sharegpu completion bash)",
      "  zsh:  source <(kubectl-sharegpu completion zsh)"
    })
public final class CompletionCommand implements Callable<Integer> {

  /** The shells with a script. */
  enum Shell {
    bash,
    zsh
  }

  @Parameters(index = "0", paramLabel = "SHELL", description = "${COMPLETION-CANDIDATES}")
  Shell shell = Shell.bash;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    CommandLine root = spec.root().commandLine();
    String script = AutoComplete.bash("kubectl-sharegpu", root);
    if (shell == Shell.zsh) {
      script =
          "autoload -U +X compinit && compinit\n"
              + "autoload -U +X bashcompinit && bashcompinit\n"
              + script;
    }
    spec.commandLine().getOut().print(script);
    spec.commandLine().getOut().flush();
    return 0;
  }
}
