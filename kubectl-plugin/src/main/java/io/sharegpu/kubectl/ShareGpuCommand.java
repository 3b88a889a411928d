package io.sharegpu.kubectl;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.kubectl.command.CompletionCommand;
import io.sharegpu.kubectl.command.CordonCommand;
import io.sharegpu.kubectl.command.DrainCommand;
import io.sharegpu.kubectl.command.ExplainCommand;
import io.sharegpu.kubectl.command.NodesCommand;
import io.sharegpu.kubectl.command.PodsCommand;
import io.sharegpu.kubectl.command.TopCommand;
import io.sharegpu.kubectl.command.TrainCommand;
import io.sharegpu.kubectl.command.UncordonCommand;
import io.sharegpu.kubectl.render.Style;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code kubectl sharegpu}: which GPU each pod is on, who shares it, why a pod is pending, and GPU
 * cordon and drain. Talks to the API server only, with the user's kubeconfig and RBAC.
 */
@Command(
    name = "kubectl sharegpu",
    mixinStandardHelpOptions = true,
    versionProvider = ShareGpuCommand.Version.class,
    description =
        "ShareGPU: GPUs per node, pods per GPU, why a pod is pending, GPU cordon and drain.",
    subcommands = {
      NodesCommand.class,
      PodsCommand.class,
      ExplainCommand.class,
      CordonCommand.class,
      UncordonCommand.class,
      DrainCommand.class,
      TopCommand.class,
      CompletionCommand.class,
      TrainCommand.class,
      CommandLine.HelpCommand.class
    })
public final class ShareGpuCommand implements Runnable {

  @Spec CommandSpec spec;

  private Style style = Style.PLAIN;

  /** Runs the plugin with stdout and stderr; exits with the command's status. */
  public static void main(String[] args) {
    Charset charset = Charset.defaultCharset();
    PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, charset), true);
    PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, charset), true);
    System.exit(run(out, err, Style.detect(), args));
  }

  /**
   * Runs one command line in this JVM, writing to {@code out} and {@code err} in {@code style};
   * returns the exit status: 0 done, 1 failed (or not all pods evicted), 2 wrong usage.
   */
  public static int run(PrintWriter out, PrintWriter err, Style style, String... args) {
    ShareGpuCommand root = new ShareGpuCommand();
    root.style = style;
    CommandLine cli = new CommandLine(root);
    cli.setOut(out);
    cli.setErr(err);
    cli.setColorScheme(
        CommandLine.Help.defaultColorScheme(
            style.coloured() ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF));
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("error: " + Failures.describe(e));
          commandLine.getErr().flush();
          return 1;
        });
    if (args.length > 0 && args[0].equals("__complete")) {
      Completion.complete(cli, java.util.Arrays.asList(args).subList(1, args.length))
          .forEach(out::println);
      out.flush();
      return 0;
    }
    int status = cli.execute(args);
    out.flush();
    err.flush();
    return status;
  }

  /** Returns the style every command prints in. */
  public Style style() {
    return style;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The version from the jar's manifest, {@code dev} when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = ShareGpuCommand.class.getPackage().getImplementationVersion();
      return new String[] {"kubectl-sharegpu " + (v == null ? "dev" : v)};
    }
  }

  /** Turns failures into one line for the user. */
  static final class Failures {
    private Failures() {}

    static String describe(Exception e) {
      if (e instanceof KubernetesClientException k) {
        return KubeErrors.describe(k);
      }
      return e.getMessage() == null ? e.toString() : e.getMessage();
    }
  }
}
