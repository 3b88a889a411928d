package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.kubectl.report.CordonList;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cordon GPU-UUID}: no new pods on that GPU; the pods on it stay. */
@Command(
    name = "cordon",
    mixinStandardHelpOptions = true,
    description = {
      "Stop placing new pods on one GPU; the pods on it stay.",
      "For a faulty card or a maintenance.",
      "Recorded in the GPUNode's spec.cordonedGpus with a reason and the time.",
      "Needs get, list and update on gpunodes.sharegpu.io."
    })
public final class CordonCommand extends KubeCommand {

  @Parameters(index = "0", paramLabel = "GPU-UUID", description = "The GPU (or MIG instance).")
  String uuid = "";

  @Option(
      names = "--reason",
      paramLabel = "TEXT",
      description = "Why, e.g. \"Xid 79\"; replaces the reason of a GPU already cordoned.")
  @Nullable String reason;

  @Option(
      names = "--dry-run",
      description = "Have the API server check the change without storing it.")
  boolean dryRun;

  @Override
  int run(KubernetesClient client) {
    return cordon(client, uuid, reason, "", dryRun, this);
  }

  /**
   * Cordons {@code uuid}; shared with {@code drain}. A GPU already cordoned keeps its entry unless
   * {@code reason} is given and differs; a new entry takes {@code reason}, else {@code
   * defaultReason}. Returns 0, or 1 when no GPUNode holds the GPU.
   */
  static int cordon(
      KubernetesClient client,
      String uuid,
      @Nullable String reason,
      String defaultReason,
      boolean dryRun,
      KubeCommand command) {
    GPUNode node = GpuCordons.holding(client, uuid).orElse(null);
    if (node == null) {
      command.err().println("error: no GPUNode has a GPU with UUID " + uuid);
      return 1;
    }
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    GpuCordons.Outcome outcome =
        GpuCordons.edit(
            client,
            node,
            list ->
                CordonList.contains(list, uuid)
                        && (reason == null || CordonList.cordonedWith(list, uuid, reason))
                    ? list
                    : CordonList.cordon(list, uuid, reason == null ? defaultReason : reason, now),
            dryRun);
    String suffix = dryRun ? " (dry run)" : "";
    command
        .out()
        .println(
            "gpu/"
                + uuid
                + " on node "
                + outcome.node()
                + (outcome.changed() ? " cordoned" : " already cordoned")
                + suffix);
    return 0;
  }
}
