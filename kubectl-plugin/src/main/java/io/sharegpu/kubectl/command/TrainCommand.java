package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.kubectl.render.ExplainView;
import io.sharegpu.kubectl.render.NodesView;
import io.sharegpu.kubectl.render.PodsView;
import io.sharegpu.kubectl.render.Structured;
import io.sharegpu.kubectl.render.Style;
import io.sharegpu.kubectl.render.TopView;
import io.sharegpu.kubectl.report.Explanation;
import io.sharegpu.kubectl.report.NodeReport;
import io.sharegpu.kubectl.report.PromText;
import io.sharegpu.kubectl.report.Reports;
import io.sharegpu.kubectl.report.Usage;
import io.sharegpu.kubectl.report.UsageRow;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A hidden command the launcher runs once, with no cluster, to record which classes the plugin
 * loads into a class-data archive or AOT cache: it parses and renders GPUNodes and pods the way
 * {@code nodes} and {@code pods} do, prints every help text and sends one request to a closed local
 * port through the real client. Prints nothing.
 */
@Command(name = "__train", hidden = true)
public final class TrainCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    StringWriter sink = new StringWriter();
    PrintWriter out = new PrintWriter(sink);
    CommandLine root = spec.root().commandLine();
    root.usage(out);
    root.getSubcommands().values().forEach(c -> c.usage(out));

    KubernetesSerialization serialization = new KubernetesSerialization();
    GPUNode node = serialization.unmarshal(serialization.asJson(gpuNode()), GPUNode.class);
    PodList pods = serialization.unmarshal(serialization.asJson(pods()), PodList.class);
    List<NodeReport> nodes = Reports.nodes(List.of(node), pods.getItems());
    for (Style style : List.of(Style.PLAIN, Style.ANSI)) {
      out.print(NodesView.table(nodes, false, style));
      out.print(NodesView.table(nodes, true, style));
      out.print(PodsView.table(Reports.pods(pods.getItems()), true, true, style));
    }
    out.print(Structured.json(nodes));
    out.print(Structured.yaml(nodes));
    List<UsageRow> usage =
        Usage.rows(
            PromText.parse(
                "sharegpu_container_gpu_memory_used_bytes{namespace=\"t\",pod=\"p\",container=\"main\","
                    + "node=\"n\",device_uuid=\"GPU-t-0\"} 1e9\n"),
            Reports.pods(pods.getItems()));
    out.print(TopView.table(usage, true, Style.PLAIN));
    out.print(
        ExplainView.render(
            new Explanation(
                "t/p",
                List.of(),
                null,
                List.of(
                    new Explanation.NodeExplanation("n", false, "full", List.of("GPU 0"), null))),
            Style.PLAIN));

    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("https://127.0.0.1:1")
            .withRequestRetryBackoffLimit(0)
            .withRequestTimeout(2000)
            .withConnectionTimeout(2000)
            .build();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      client.resources(GPUNode.class).list();
    } catch (KubernetesClientException expected) {
      // nobody listens there: the request only has to load the HTTP and TLS classes
    }
    return 0;
  }

  private static GPUNode gpuNode() {
    GPUNode n = new GPUNode();
    n.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("n").build());
    GPUNodeSpec spec = new GPUNodeSpec("n");
    spec.getCordonedGpus().add(new GpuCordon("GPU-t-1", "training", "2026-01-01T00:00:00Z"));
    n.setSpec(spec);
    GPUNodeStatus status = new GPUNodeStatus();
    status.getGpus().add(new GpuStatus("GPU-t-0", 0, "NVIDIA H100 80GB HBM3", 81559));
    status.getGpus().add(new GpuStatus("GPU-t-1", 1, "NVIDIA H100 80GB HBM3", 81559));
    n.setStatus(status);
    return n;
  }

  private static PodList pods() {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace("t")
            .withName("p")
            .withAnnotations(
                Map.of(
                    ShareGpuAnnotations.ASSIGNED_GPUS, "GPU-t-0",
                    ShareGpuAnnotations.ASSIGNED_MEMORY_MIB, "10240",
                    ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE, "50",
                    ShareGpuAnnotations.MPS_PINNED_MEM_LIMIT, "0=10240M",
                    ShareGpuAnnotations.ASSIGNED_NODE, "n"))
            .endMetadata()
            .withNewSpec()
            .withNodeName("n")
            .withContainers(
                new ContainerBuilder()
                    .withName("main")
                    .withNewResources()
                    .withLimits(
                        Map.of(
                            ShareGpuResources.GPU_MILLI, new Quantity("250"),
                            ShareGpuResources.GPU_MEMORY, new Quantity("10240")))
                    .endResources()
                    .build())
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .endStatus()
            .build();
    return new PodListBuilder().withItems(pod).build();
  }
}
