package io.sharegpu.extender.e2e;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.mapping.DemandMapper;
import io.sharegpu.extender.mapping.GpuNodeMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The small heterogeneous scenario of {@link PolicyParityE2E}, and its in-process replay through
 * core's {@link Placement}: eight GPU nodes of seven models with GPUs already in use, and a fixed
 * sequence of 32 pods (shares of many sizes, one and two whole GPUs, explicit memory, model
 * constraints, a pod with two GPU containers).
 *
 * <p>The replay feeds the policy exactly as the extender does: nodes come from the GPUNodes through
 * {@link GpuNodeMapper#toGpuNode}, pods that were already bound enter the ledger from their
 * assignment annotations without being shown to the policy (the extender learns only from pods it
 * filters), and each new pod is translated by {@link DemandMapper#toDemand}, observed once, then
 * placed on the policy's best node and committed, as the simulator does.
 */
final class ParityScenario {

  /** Label on the scenario's nodes; the pods select it so that no other node is a candidate. */
  static final String NODE_LABEL = "sharegpu.io/e2e-scenario";

  static final String NODE_LABEL_VALUE = "policy-parity";

  /**
   * The pods' image. Every node but {@link #NODE_WITHOUT_IMAGE} reports it (20 GiB) in {@code
   * status.images}, so kube-scheduler's {@code ImageLocality} scores that node 100 lower than the
   * others: the extender's answer has to outweigh it whenever the policy prefers that node.
   */
  static final String IMAGE = "registry.example.com/sharegpu/cuda-app:12.4";

  static final long IMAGE_BYTES = 20L << 30;

  /** The node whose status does not list {@link #IMAGE}. */
  static final String NODE_WITHOUT_IMAGE = "parity-t4-2";

  /** The extender's policy seed ({@code ExtenderConfiguration} uses 1). */
  static final long POLICY_SEED = 1L;

  /** One GPU node: {@code count} GPUs of one model, host CPU in cores. */
  record NodeSpec(String name, String model, int count, long memoryMib, int cpuCores) {
    String uuid(int index) {
      return "GPU-" + name + "-" + index;
    }
  }

  /** One GPU container: a share (milli < 1000) or whole GPUs (a multiple of 1000). */
  record ContainerSpec(String name, int milli, long memoryMib) {}

  /** A pod to schedule: host CPU request, allowed models (empty = any), its GPU containers. */
  record PodSpec(String name, int cpuMilli, String models, List<ContainerSpec> containers) {}

  /** A pod bound before the extender starts, on {@code node}, GPU indexes per container. */
  record ExistingSpec(
      String name, String node, int cpuMilli, List<ContainerSpec> containers, List<int[]> gpus) {}

  /**
   * Where a pod went: the node and, per container, its GPU UUIDs in the order they were chosen; an
   * empty node when it fits nowhere.
   */
  record Choice(String pod, String node, Map<String, List<String>> gpus) {
    @Override
    public String toString() {
      return pod + " -> " + node + " " + gpus;
    }
  }

  /** One replay step: the choice and how the extender's prioritize would have scored the nodes. */
  record Step(Choice choice, Map<String, Integer> scores, int feasible) {}

  static final List<NodeSpec> NODES =
      List.of(
          new NodeSpec("parity-h100-8", "NVIDIA H100 80GB HBM3", 8, 81559, 32),
          new NodeSpec("parity-a100-4", "NVIDIA A100-SXM4-40GB", 4, 40960, 16),
          new NodeSpec("parity-a100-2", "NVIDIA A100-SXM4-80GB", 2, 81920, 64),
          new NodeSpec("parity-l4-4", "NVIDIA L4", 4, 23034, 48),
          new NodeSpec("parity-t4-2", "Tesla T4", 2, 15360, 16),
          new NodeSpec("parity-v100-4", "Tesla V100-SXM2-32GB", 4, 32768, 96),
          new NodeSpec("parity-a10-1", "NVIDIA A10", 1, 23028, 24),
          new NodeSpec("parity-h100-4", "NVIDIA H100 80GB HBM3", 4, 81559, 24));

  static final List<ExistingSpec> EXISTING =
      List.of(
          existing("pre-h100-train", "parity-h100-8", 8000, whole("main", 2), 0, 1),
          existing("pre-h100-nb", "parity-h100-8", 6000, share("main", 300), 2),
          existing("pre-a100-a", "parity-a100-4", 6000, share("main", 500), 0),
          existing("pre-a100-b", "parity-a100-4", 4000, share("main", 250), 1),
          existing("pre-l4", "parity-l4-4", 2000, share("main", 700), 3),
          existing("pre-t4", "parity-t4-2", 10000, share("main", 400), 0),
          existing("pre-v100-whole", "parity-v100-4", 2000, whole("main", 1), 2),
          existing("pre-v100-small", "parity-v100-4", 1000, share("main", 150), 0),
          existing("pre-h100-4-a", "parity-h100-4", 6000, share("main", 600), 1),
          existing("pre-h100-4-b", "parity-h100-4", 4000, share("main", 200), 1),
          existing("pre-h100-4-c", "parity-h100-4", 2000, share("main", 100), 3));

  static final List<PodSpec> PODS =
      List.of(
          pod("p01", 500, "", share("main", 300)),
          pod("p02", 250, "", share("main", 500)),
          pod("p03", 1000, "", whole("main", 1)),
          pod("p04", 250, "", share("main", 250)),
          pod("p05", 500, "", new ContainerSpec("main", 100, 4096)),
          pod("p06", 750, "", share("main", 700)),
          pod("p07", 2000, "", whole("main", 2)),
          pod("p08", 250, "T4", share("main", 200)),
          pod("p09", 500, "", share("main", 450)),
          pod("p10", 250, "", share("main", 350)),
          pod("p11", 250, "", share("main", 150)),
          pod("p12", 750, "", share("main", 600)),
          pod("p13", 500, "", share("main", 800)),
          // the first A100-only pod: no restricted pod has asked for A100 before (the policy prices
          // such a model by the average demand of the asked ones), and it asks for little
          pod("p14", 250, "A100", share("main", 200)),
          pod("p15", 250, "", share("main", 250)),
          pod("p16", 1000, "L4", whole("main", 1)),
          pod("p17", 250, "", share("main", 120)),
          pod("p18", 500, "", share("main", 900)),
          pod("p19", 500, "", new ContainerSpec("main", 300, 20000)),
          pod("p20", 250, "", share("main", 650)),
          pod("p21", 250, "", share("main", 200)),
          pod("p22", 500, "", share("main", 400)),
          pod("p23", 1000, "", whole("main", 1)),
          pod("p24", 500, "", share("main", 550)),
          pod("p25", 250, "", share("main", 100)),
          pod("p26", 750, "", share("main", 750)),
          pod("p27", 500, "H100", share("main", 300)),
          pod("p28", 250, "", share("main", 250)),
          pod("p29", 500, "", new ContainerSpec("a", 300, 0), new ContainerSpec("b", 200, 0)),
          pod("p30", 250, "", share("main", 150)),
          pod("p31", 2000, "", whole("main", 2)),
          pod("p32", 250, "", share("main", 350)));

  private ParityScenario() {}

  // ------------------------------------------------------------------------- Kubernetes objects

  /** The GPUNode of {@code n} with its status filled in (as the node agent reports it). */
  static GPUNode gpuNode(NodeSpec n, String heartbeat) {
    List<GpuStatus> gpus = new ArrayList<>();
    for (int i = 0; i < n.count(); i++) {
      GpuStatus s = new GpuStatus(n.uuid(i), i, n.model(), n.memoryMib());
      s.setComputeMilli(1000);
      s.setHealthy(true);
      gpus.add(s);
    }
    GPUNode g = new GPUNode();
    g.setMetadata(new ObjectMetaBuilder().withName(n.name()).build());
    g.setSpec(new GPUNodeSpec(n.name()));
    GPUNodeStatus status = new GPUNodeStatus();
    status.setGpus(gpus);
    status.setEnforcement(GPUNodeStatus.ENFORCEMENT_MPS);
    status.setDriverVersion("550.54.15");
    status.setHeartbeatTime(heartbeat);
    g.setStatus(status);
    return g;
  }

  /** An already bound pod: {@code spec.nodeName} set and the assignment annotations written. */
  static Pod existingPod(ExistingSpec e, String namespace, String schedulerName) {
    NodeSpec n = node(e.node());
    List<ContainerAssignment> assigned = new ArrayList<>();
    for (int c = 0; c < e.containers().size(); c++) {
      ContainerSpec cs = e.containers().get(c);
      List<String> uuids = new ArrayList<>();
      for (int idx : e.gpus().get(c)) {
        uuids.add(n.uuid(idx));
      }
      boolean whole = cs.milli() >= 1000;
      long perGpu =
          whole
              ? n.memoryMib()
              : cs.memoryMib() > 0 ? cs.memoryMib() : (cs.milli() * n.memoryMib() + 999) / 1000;
      assigned.add(new ContainerAssignment(cs.name(), uuids, perGpu, whole ? 1000 : cs.milli()));
    }
    Map<String, String> annotations =
        AssignmentAnnotations.encode(
            new PodAssignment(n.name(), assigned), Instant.parse("2026-12-01T00:00:00Z"));
    return podObject(
        e.name(), namespace, schedulerName, e.cpuMilli(), e.containers(), e.node(), annotations);
  }

  /** A pod to schedule, selecting the scenario's nodes. */
  static Pod newPod(PodSpec p, String namespace, String schedulerName) {
    Map<String, String> annotations = new LinkedHashMap<>();
    if (!p.models().isEmpty()) {
      annotations.put(ShareGpuAnnotations.GPU_MODELS, p.models());
    }
    return podObject(
        p.name(), namespace, schedulerName, p.cpuMilli(), p.containers(), null, annotations);
  }

  private static Pod podObject(
      String name,
      String namespace,
      String schedulerName,
      int cpuMilli,
      List<ContainerSpec> containers,
      String nodeName,
      Map<String, String> annotations) {
    List<Container> cs = new ArrayList<>();
    for (int i = 0; i < containers.size(); i++) {
      ContainerSpec c = containers.get(i);
      Map<String, Quantity> gpu = new LinkedHashMap<>();
      gpu.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(c.milli())));
      if (c.memoryMib() > 0) {
        gpu.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(c.memoryMib())));
      }
      Map<String, Quantity> requests = new LinkedHashMap<>(gpu);
      if (i == 0) {
        requests.put("cpu", new Quantity(cpuMilli + "m"));
        requests.put("memory", new Quantity("512Mi"));
      }
      cs.add(
          new ContainerBuilder()
              .withName(c.name())
              .withImage(IMAGE)
              .withNewResources()
              .withLimits(gpu)
              .withRequests(requests)
              .endResources()
              .build());
    }
    return new PodBuilder()
        .withMetadata(
            new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .withAnnotations(annotations)
                .build())
        .withNewSpec()
        .withSchedulerName(schedulerName)
        .withNodeName(nodeName)
        .withNodeSelector(Map.of(NODE_LABEL, NODE_LABEL_VALUE))
        .withContainers(cs)
        .withTerminationGracePeriodSeconds(0L)
        .endSpec()
        .build();
  }

  // ------------------------------------------------------------------------------------ replay

  /**
   * Replays {@code sequence} in-process with the named policy, as the extender sees it.
   *
   * @param gpuNodes the scenario's GPUNodes (as read from the API server)
   * @param existing the pods bound before the extender started (with their annotations and UIDs)
   * @param sequence the pods to schedule, in submission order (with their UIDs)
   */
  static List<Step> replay(
      String policyName, List<GPUNode> gpuNodes, List<Pod> existing, List<Pod> sequence) {
    PlacementPolicy policy = PlacementPolicies.byName(policyName, POLICY_SEED);
    Ledger ledger = new Ledger();
    Map<String, GpuNode> nodes = new HashMap<>();
    for (GPUNode g : gpuNodes) {
      GpuNode n = GpuNodeMapper.toGpuNode(g);
      nodes.put(n.name(), n);
      ledger.putNode(n);
    }
    for (Pod p : existing) {
      PodGpuRequest request = request(p);
      String node = p.getSpec().getNodeName();
      PodAssignment assignment =
          AssignmentAnnotations.decode(
                  node, p.getMetadata().getAnnotations(), request.containerNames())
              .orElseThrow(() -> new IllegalStateException(p + " has no assignment"));
      Allocation a =
          DemandMapper.fromAssignment(
                  DemandMapper.podKey(p),
                  p.getMetadata().getUid(),
                  request,
                  assignment,
                  nodes.get(node),
                  AllocationState.BOUND)
              .orElseThrow(() -> new IllegalStateException(p + " names unknown GPUs"));
      ledger.commit(a);
    }
    Placement placement = new Placement(ledger, policy);
    List<Step> steps = new ArrayList<>();
    for (Pod p : sequence) {
      PodDemand demand =
          DemandMapper.toDemand(DemandMapper.podKey(p), p.getMetadata().getUid(), request(p));
      policy.observe(demand);
      FilterResult filtered = placement.filter(demand, List.copyOf(ledger.nodeNames()));
      Map<String, Integer> scores =
          filtered.feasible().size() > 1
              ? new TreeMap<>(placement.prioritize(demand, filtered.feasible()))
              : Map.of();
      Optional<Allocation> placed = placement.place(demand);
      if (placed.isEmpty()) {
        steps.add(new Step(new Choice(p.getMetadata().getName(), "", Map.of()), scores, 0));
        continue;
      }
      Allocation a = placed.get();
      ledger.commit(a.withState(AllocationState.BOUND));
      steps.add(new Step(choice(p.getMetadata().getName(), a), scores, filtered.feasible().size()));
    }
    return steps;
  }

  /** The choice an allocation stands for. */
  static Choice choice(String pod, Allocation a) {
    Map<String, List<String>> gpus = new TreeMap<>();
    for (ContainerGrant c : a.containers()) {
      gpus.put(c.container(), c.gpus().stream().map(GpuGrant::uuid).toList());
    }
    return new Choice(pod, a.node(), gpus);
  }

  /** The choice a bound pod's {@code spec.nodeName} and assignment annotations record. */
  static Optional<Choice> choice(Pod p) {
    String node = p.getSpec().getNodeName();
    if (node == null || node.isEmpty()) {
      return Optional.empty();
    }
    return AssignmentAnnotations.decode(
            node, p.getMetadata().getAnnotations(), request(p).containerNames())
        .map(
            a -> {
              Map<String, List<String>> gpus = new TreeMap<>();
              for (ContainerAssignment c : a.containers()) {
                gpus.put(c.container(), c.gpuUuids());
              }
              return new Choice(p.getMetadata().getName(), node, gpus);
            });
  }

  static PodGpuRequest request(Pod p) {
    ParsedRequest parsed = PodGpuRequestParser.parse(p);
    if (!(parsed instanceof ParsedRequest.Valid valid)) {
      throw new IllegalStateException(p.getMetadata().getName() + ": " + parsed);
    }
    return valid.request();
  }

  static NodeSpec node(String name) {
    return NODES.stream()
        .filter(n -> n.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(name));
  }

  /** Total host CPU (milli) each node's pods request at the end of a replay. */
  static Map<String, Long> cpuRequested(List<Step> steps) {
    Map<String, Long> cpu = new HashMap<>();
    for (ExistingSpec e : EXISTING) {
      cpu.merge(e.node(), (long) e.cpuMilli(), Long::sum);
    }
    Map<String, Integer> podCpu = new HashMap<>();
    for (PodSpec p : PODS) {
      podCpu.put(p.name(), p.cpuMilli());
    }
    for (Step s : steps) {
      if (s.choice().node().isEmpty()) {
        continue;
      }
      cpu.merge(s.choice().node(), (long) podCpu.get(s.choice().pod()), Long::sum);
    }
    return cpu;
  }

  private static ContainerSpec share(String name, int milli) {
    return new ContainerSpec(name, milli, 0);
  }

  private static ContainerSpec whole(String name, int gpus) {
    return new ContainerSpec(name, gpus * 1000, 0);
  }

  private static PodSpec pod(String name, int cpuMilli, String models, ContainerSpec... cs) {
    return new PodSpec(name, cpuMilli, models, List.of(cs));
  }

  private static ExistingSpec existing(
      String name, String node, int cpuMilli, ContainerSpec c, int... gpus) {
    return new ExistingSpec(name, node, cpuMilli, List.of(c), List.<int[]>of(gpus));
  }
}
