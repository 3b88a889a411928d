package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.kubectl.render.PodsView;
import io.sharegpu.kubectl.render.Structured;
import io.sharegpu.kubectl.report.PodReport;
import io.sharegpu.kubectl.report.Reports;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pods}: each pod holding GPUs with its node, GPU UUIDs, share, limit, memory, MPS caps. */
@Command(
    name = "pods",
    mixinStandardHelpOptions = true,
    description = {
      "Show the pods that hold GPUs: node, GPU UUIDs, share, limit, memory, MPS caps.",
      "Read from the assignment annotations the scheduler extender wrote on bound pods."
    })
public final class PodsCommand extends KubeCommand {

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "Namespace (default: the context's).")
  @Nullable String namespace;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "Pods of every namespace.")
  boolean allNamespaces;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: table).")
  OutputFormat output = OutputFormat.table;

  @Override
  int run(KubernetesClient client) {
    String ns = namespace != null ? namespace : client.getNamespace();
    List<Pod> pods =
        allNamespaces
            ? BoundPods.list(client, null)
            : BoundPods.list(client, ns == null ? "default" : ns);
    List<PodReport> report = Reports.pods(pods);
    switch (output) {
      case json -> out().print(Structured.json(report));
      case yaml -> out().print(Structured.yaml(report));
      default -> {
        if (report.isEmpty()) {
          err()
              .println(
                  allNamespaces
                      ? "No pods hold GPUs."
                      : "No pods hold GPUs in namespace " + (ns == null ? "default" : ns) + ".");
        } else {
          out().print(PodsView.table(report, allNamespaces, output == OutputFormat.wide, style()));
        }
      }
    }
    return 0;
  }
}
