package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.kubectl.render.NodesView;
import io.sharegpu.kubectl.render.Structured;
import io.sharegpu.kubectl.report.NodeReport;
import io.sharegpu.kubectl.report.Reports;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code nodes}: one row per GPU of every GPUNode, with the pods placed on it. */
@Command(
    name = "nodes",
    mixinStandardHelpOptions = true,
    description = {
      "Show the GPUs of every node, with their pods, MIG, health and cordon.",
      "Compute and memory used/total as bars, from the GPUNodes and the pods' assignment",
      "annotations. Needs list on gpunodes.sharegpu.io and on pods in all namespaces."
    })
public final class NodesCommand extends KubeCommand {

  @Parameters(arity = "0..*", paramLabel = "NODE", description = "Only these nodes.")
  List<String> names = List.of();

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: table).")
  OutputFormat output = OutputFormat.table;

  @Override
  int run(KubernetesClient client) {
    // the two lists travel and parse at the same time
    CompletableFuture<List<Pod>> podList =
        CompletableFuture.supplyAsync(() -> BoundPods.list(client, null));
    List<GPUNode> gpuNodes = client.resources(GPUNode.class).list().getItems();
    if (!names.isEmpty()) {
      gpuNodes = gpuNodes.stream().filter(n -> names.contains(n.getMetadata().getName())).toList();
    }
    List<Pod> pods;
    try {
      pods = podList.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    List<NodeReport> report = Reports.nodes(gpuNodes, pods);
    switch (output) {
      case json -> out().print(Structured.json(report));
      case yaml -> out().print(Structured.yaml(report));
      default -> {
        if (report.isEmpty()) {
          err().println("No GPUNodes found.");
        } else {
          out().print(NodesView.table(report, output == OutputFormat.wide, style()));
        }
      }
    }
    return 0;
  }
}
