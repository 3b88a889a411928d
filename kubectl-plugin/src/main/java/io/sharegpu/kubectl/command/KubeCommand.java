package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.kubectl.KubeOptions;
import io.sharegpu.kubectl.ShareGpuCommand;
import io.sharegpu.kubectl.render.Style;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** A command that talks to the API server: the kubectl options, the output and the style. */
abstract class KubeCommand implements Callable<Integer> {

  @Mixin KubeOptions kube;

  @ParentCommand ShareGpuCommand root;

  @Spec CommandSpec spec;

  /** Runs the command with a client that is closed afterwards; returns the exit status. */
  abstract int run(KubernetesClient client) throws Exception;

  @Override
  public final Integer call() throws Exception {
    long start = System.nanoTime();
    KubernetesClient client = kube.client();
    long built = System.nanoTime();
    try {
      return run(client);
    } finally {
      out().flush();
      long ran = System.nanoTime();
      client.close();
      if (System.getenv("SHAREGPU_TIMING") != null) {
        err()
            .printf(
                "timing: jvm to command %d ms, client %d ms, command %d ms, close %d ms%n",
                java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime()
                    - (ran - start) / 1_000_000,
                (built - start) / 1_000_000,
                (ran - built) / 1_000_000,
                (System.nanoTime() - ran) / 1_000_000);
      }
    }
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  Style style() {
    return root.style();
  }
}
