package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.kubectl.KubeErrors;
import io.sharegpu.kubectl.render.Structured;
import io.sharegpu.kubectl.render.TopView;
import io.sharegpu.kubectl.report.PromText;
import io.sharegpu.kubectl.report.Reports;
import io.sharegpu.kubectl.report.UsageRow;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code top}: per pod the GPU memory in use and its GPU's utilisation, from the node agents'
 * Prometheus metrics read through the API server's pod proxy ({@code
 * /api/v1/namespaces/NS/pods/NAME:PORT/proxy/metrics}).
 */
@Command(
    name = "top",
    mixinStandardHelpOptions = true,
    description = {
      "Show per-pod GPU memory in use and GPU utilisation from the node agents.",
      "Memory in use against the memory assigned, from",
      "the node agents' metrics read through the API server's pod proxy (needs list on pods and",
      "get on pods/proxy in the node agents' namespace)."
    })
public final class TopCommand extends KubeCommand {

  static final int DEFAULT_AGENT_PORT = 9400;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "Only pods of this namespace (default: the context's).")
  @Nullable String namespace;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "Pods of every namespace.")
  boolean allNamespaces;

  @Option(
      names = "--agent-selector",
      paramLabel = "SELECTOR",
      defaultValue = "app.kubernetes.io/component=node-agent",
      description = "Label selector of the node agent pods (default: ${DEFAULT-VALUE}).")
  String agentSelector = "app.kubernetes.io/component=node-agent";

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: table).")
  OutputFormat output = OutputFormat.table;

  @Override
  int run(KubernetesClient client) {
    List<Pod> agents;
    try {
      agents = client.pods().inAnyNamespace().withLabelSelector(agentSelector).list().getItems();
    } catch (KubernetesClientException e) {
      err()
          .println(
              "No node agent is reachable: cannot list the node agent pods ("
                  + KubeErrors.describe(e)
                  + ").");
      return 1;
    }
    List<PromText.Sample> samples = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    int reached = 0;
    for (Pod agent : agents) {
      if (!"Running".equals(agent.getStatus() == null ? null : agent.getStatus().getPhase())) {
        failures.add(agent.getMetadata().getName() + ": not running");
        continue;
      }
      String path =
          "/api/v1/namespaces/"
              + agent.getMetadata().getNamespace()
              + "/pods/"
              + agent.getMetadata().getName()
              + ":"
              + metricsPort(agent)
              + "/proxy/metrics";
      ApiGet.Answer answer = ApiGet.get(client, path, kube.requestTimeoutSeconds());
      if (answer.ok()) {
        reached++;
        samples.addAll(PromText.parse(answer.body()));
      } else {
        failures.add(
            agent.getMetadata().getName()
                + (answer.code() == 403
                    ? ": forbidden (needs get on pods/proxy in namespace "
                        + agent.getMetadata().getNamespace()
                        + ")"
                    : ": " + (answer.code() > 0 ? "HTTP " + answer.code() : answer.body())));
      }
    }
    if (reached == 0) {
      err()
          .println(
              "No node agent is reachable"
                  + (agents.isEmpty()
                      ? ": no pods match " + agentSelector + " in any namespace"
                      : ": " + String.join("; ", failures))
                  + ". GPU usage needs the ShareGPU node agent (see `nodes` for allocations).");
      return 1;
    }
    String ns = namespace != null ? namespace : client.getNamespace();
    List<Pod> pods =
        allNamespaces
            ? BoundPods.list(client, null)
            : BoundPods.list(client, ns == null ? "default" : ns);
    List<UsageRow> rows =
        io.sharegpu.kubectl.report.Usage.rows(samples, Reports.pods(pods)).stream()
            .filter(r -> allNamespaces || r.namespace().equals(ns == null ? "default" : ns))
            .toList();
    switch (output) {
      case json -> out().print(Structured.json(rows));
      case yaml -> out().print(Structured.yaml(rows));
      default -> {
        if (rows.isEmpty()) {
          out()
              .println(
                  "No GPU processes reported"
                      + (allNamespaces ? "." : " in namespace " + ns + "."));
        } else {
          out().print(TopView.table(rows, allNamespaces, style()));
        }
      }
    }
    if (!failures.isEmpty()) {
      err()
          .println(
              "warning: "
                  + failures.size()
                  + " of "
                  + agents.size()
                  + " node agents not reachable: "
                  + String.join("; ", failures));
    }
    return 0;
  }

  /** Returns the agent container's port named {@code metrics}, else 9400 (the chart's). */
  static int metricsPort(Pod pod) {
    if (pod.getSpec() != null && pod.getSpec().getContainers() != null) {
      for (Container c : pod.getSpec().getContainers()) {
        if (c.getPorts() != null) {
          for (ContainerPort p : c.getPorts()) {
            if ("metrics".equals(p.getName()) && p.getContainerPort() != null) {
              return p.getContainerPort();
            }
          }
        }
      }
    }
    return DEFAULT_AGENT_PORT;
  }
}
