package io.sharegpu.extender.debug;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Rejection;
import io.sharegpu.core.preemption.PreemptionCandidate;
import io.sharegpu.core.preemption.PreemptionPlan;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.mapping.PodDemands;
import io.sharegpu.extender.preempt.Preemption;
import io.sharegpu.extender.scheduling.SchedulingState;
import io.sharegpu.extender.web.KubernetesNames;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** Read-only JSON views of the ledger for operators: nodes, GPUs, allocations, explanations. */
@RestController
@RequestMapping("/debug")
public class DebugController {

  private static final Logger LOG = LoggerFactory.getLogger(DebugController.class);

  private final SchedulingState state;
  private final KubernetesClient client;
  private final Preemption preemption;

  /** Creates the controller. */
  public DebugController(SchedulingState state, KubernetesClient client, Preemption preemption) {
    this.state = state;
    this.client = client;
    this.preemption = preemption;
  }

  /**
   * One GPU with what is allocated on it; {@code cordoned} when an operator took it out of
   * placement ({@code cordonReason} then, possibly empty; absent otherwise).
   */
  public record GpuView(
      int index,
      String uuid,
      String model,
      long memoryMib,
      int computeMilli,
      boolean healthy,
      @Nullable String parentUuid,
      @Nullable String migProfile,
      int usedMilli,
      long usedMemoryMib,
      boolean exclusive,
      List<String> pods,
      boolean cordoned,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String cordonReason) {}

  /** One node with its GPUs. */
  public record NodeView(String name, List<GpuView> gpus) {}

  /** One container's grant on one GPU; {@code cordoned} and its reason are the GPU's. */
  public record AllocationRow(
      String node,
      int gpuIndex,
      String uuid,
      String model,
      String pod,
      String podUid,
      String container,
      int computeMilli,
      long memoryMib,
      String state,
      boolean cordoned,
      @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String cordonReason) {}

  /**
   * Why a node fits the pod or not; for a node it does not fit, what preemption would do there:
   * {@code would preempt ns/a, ns/b} (the pods of lower priority kube-scheduler would evict for it)
   * or {@code no preemption: } and why none helps.
   */
  public record NodeExplanation(
      String node, boolean fits, String reason, List<String> gpus, @Nullable String preemption) {}

  /** The explanation for a pod over every node. */
  public record PodExplanation(
      String pod,
      List<String> requestErrors,
      @Nullable String heldOn,
      List<NodeExplanation> nodes) {}

  /** Every node, by name. */
  @GetMapping("/nodes")
  public List<NodeView> nodes() {
    return state.withLedger(
        l ->
            l.nodes().stream()
                .sorted(Comparator.comparing(GpuNode::name))
                .map(n -> nodeView(l, n))
                .toList());
  }

  /** One node. */
  @GetMapping("/nodes/{node}")
  public NodeView node(@PathVariable String node) {
    if (!KubernetesNames.isSubdomain(node)) {
      throw notFound("no such node");
    }
    return state.withLedger(
        l -> l.node(node).map(n -> nodeView(l, n)).orElseThrow(() -> notFound("no such node")));
  }

  /** One GPU by UUID. */
  @GetMapping("/gpus/{uuid}")
  public Map<String, Object> gpu(@PathVariable String uuid) {
    return state.withLedger(
        l -> {
          for (GpuNode n : l.nodes()) {
            for (GpuUsage u : l.usage(n.name())) {
              if (u.gpu().uuid().equals(uuid)) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("node", n.name());
                m.put("gpu", gpuView(u));
                return m;
              }
            }
          }
          throw notFound("no such GPU");
        });
  }

  /** Every grant: one row per container and GPU. */
  @GetMapping("/allocations")
  public List<AllocationRow> allocations() {
    return state.withLedger(
        l -> {
          Map<String, Gpu> gpus = new HashMap<>();
          l.nodes().forEach(n -> n.gpus().forEach(g -> gpus.put(g.uuid(), g)));
          List<AllocationRow> rows = new ArrayList<>();
          for (Allocation a : l.allocations()) {
            for (ContainerGrant c : a.containers()) {
              for (GpuGrant g : c.gpus()) {
                Gpu gpu = gpus.get(g.uuid());
                rows.add(
                    new AllocationRow(
                        a.node(),
                        gpu == null ? -1 : gpu.index(),
                        g.uuid(),
                        gpu == null ? "" : gpu.model(),
                        a.podKey(),
                        a.podUid(),
                        c.container(),
                        g.computeMilli(),
                        g.memoryMib(),
                        a.state().name(),
                        gpu != null && gpu.cordoned(),
                        gpu == null ? null : gpu.cordonReason()));
              }
            }
          }
          rows.sort(
              Comparator.comparing(AllocationRow::node)
                  .thenComparingInt(AllocationRow::gpuIndex)
                  .thenComparing(AllocationRow::pod));
          return rows;
        });
  }

  /** Why each node (and GPU) fits the pod or not. */
  @GetMapping("/pods/{namespace}/{name}/explain")
  public PodExplanation explain(@PathVariable String namespace, @PathVariable String name) {
    if (!KubernetesNames.isLabel(namespace) || !KubernetesNames.isSubdomain(name)) {
      throw notFound("no such pod");
    }
    Pod pod;
    try {
      pod = client.pods().inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      LOG.debug("cannot read pod {}/{}", namespace, name, e);
      throw new ResponseStatusException(
          HttpStatus.SERVICE_UNAVAILABLE, "cannot read the pod from the API server");
    }
    if (pod == null) {
      throw notFound("no such pod");
    }
    String key = namespace + "/" + name;
    PodDemands.Outcome asked = PodDemands.of(pod);
    if (asked instanceof PodDemands.Invalid invalid) {
      return new PodExplanation(key, invalid.errors(), null, List.of());
    }
    if (!(asked instanceof PodDemands.Demand valid)) {
      return new PodExplanation(
          key, List.of("the pod requests no sharegpu.io resources"), null, List.of());
    }
    PodDemand demand = valid.demand();
    String uid = demand.podUid();
    List<String> names =
        state.withLedger(l -> l.nodes().stream().map(GpuNode::name).sorted().toList());
    var result = state.withPlacementAndLedger((p, l) -> p.filter(demand, names));
    List<String> rejected = names.stream().filter(n -> result.rejected().containsKey(n)).toList();
    boolean bound = pod.getSpec() != null && pod.getSpec().getNodeName() != null;
    Map<String, PreemptionPlan> plans =
        bound || rejected.isEmpty()
            ? Map.of()
            : preemption.plans(demand, Preemption.priority(pod), rejected);
    String held = state.withLedger(l -> l.allocation(uid).map(Allocation::node).orElse(null));
    List<NodeExplanation> out = new ArrayList<>();
    for (String n : names) {
      Rejection r = result.rejected().get(n);
      if (r == null) {
        out.add(new NodeExplanation(n, true, "fits", List.of(), null));
      } else {
        out.add(
            new NodeExplanation(
                n, false, r.reason(), r.gpuReasons(), preemptionWords(plans.get(n))));
      }
    }
    return new PodExplanation(key, List.of(), held, out);
  }

  private static @Nullable String preemptionWords(@Nullable PreemptionPlan plan) {
    if (plan instanceof PreemptionPlan.Evict evict) {
      return evict.victims().isEmpty()
          ? "fits without evicting anyone"
          : "would preempt "
              + String.join(
                  ", ", evict.victims().stream().map(PreemptionCandidate::podKey).toList());
    }
    if (plan instanceof PreemptionPlan.Impossible impossible) {
      return "no preemption: " + impossible.reason();
    }
    return null;
  }

  private static NodeView nodeView(Ledger l, GpuNode n) {
    return new NodeView(
        n.name(), l.usage(n.name()).stream().map(DebugController::gpuView).toList());
  }

  private static GpuView gpuView(GpuUsage u) {
    Gpu g = u.gpu();
    return new GpuView(
        g.index(),
        g.uuid(),
        g.model(),
        g.memoryMib(),
        g.computeMilli(),
        g.healthy(),
        g.parentUuid(),
        g.migProfile(),
        u.usedMilli(),
        u.usedMemoryMib(),
        u.exclusive(),
        u.podKeys(),
        g.cordoned(),
        g.cordonReason());
  }

  private static ResponseStatusException notFound(String message) {
    return new ResponseStatusException(HttpStatus.NOT_FOUND, message);
  }
}
