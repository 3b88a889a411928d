package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.kubectl.report.CordonList;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code uncordon GPU-UUID}: the GPU takes new pods again. */
@Command(
    name = "uncordon",
    mixinStandardHelpOptions = true,
    description = {
      "Let a cordoned GPU take new pods again.",
      "Removes it from the GPUNode's spec.cordonedGpus.",
      "Needs get, list and update on gpunodes.sharegpu.io."
    })
public final class UncordonCommand extends KubeCommand {

  @Parameters(index = "0", paramLabel = "GPU-UUID", description = "The GPU (or MIG instance).")
  String uuid = "";

  @Option(
      names = "--dry-run",
      description = "Have the API server check the change without storing it.")
  boolean dryRun;

  @Override
  int run(KubernetesClient client) {
    GPUNode node = GpuCordons.holding(client, uuid).orElse(null);
    if (node == null) {
      err().println("error: no GPUNode has a GPU with UUID " + uuid);
      return 1;
    }
    GpuCordons.Outcome outcome =
        GpuCordons.edit(client, node, list -> CordonList.uncordon(list, uuid), dryRun);
    out()
        .println(
            "gpu/"
                + uuid
                + " on node "
                + outcome.node()
                + (outcome.changed() ? " uncordoned" : " was not cordoned")
                + (dryRun ? " (dry run)" : ""));
    return 0;
  }
}
