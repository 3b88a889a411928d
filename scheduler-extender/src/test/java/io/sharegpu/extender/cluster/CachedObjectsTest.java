package io.sharegpu.extender.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.bench.ClusterObjects;
import io.sharegpu.extender.mapping.DemandMapper;
import io.sharegpu.extender.mapping.GpuNodeMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The reduced copies the informers keep give the extender exactly what the full objects give: the
 * same GPU request (valid, invalid with the same messages, or none), the same assignment, the same
 * identity, version, node, phase and deletion state, and the same ledger.
 */
class CachedObjectsTest {

  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  private static final ClusterObjects CLUSTER = new ClusterObjects(20, 8, 200);

  /** The generated cluster's pods (bound GPU, plain, pending GPU) plus hand-made edge cases. */
  private static List<Pod> pods() {
    List<Pod> pods = new ArrayList<>();
    IntStream.range(0, 200).mapToObj(CLUSTER::pod).forEach(pods::add);
    pods.add(deleting(CLUSTER.pod(3)));
    pods.add(withPhase(CLUSTER.pod(4), "Succeeded"));
    pods.add(
        edge(
            "requests-only",
            List.of(gpu("main", Map.of(), Map.of(ShareGpuResources.GPU_MILLI, "300")))));
    pods.add(
        edge(
            "two-gpu-containers",
            List.of(
                gpu(
                    "a",
                    Map.of(ShareGpuResources.GPU_MILLI, "2000", "cpu", "1"),
                    Map.of("memory", "1Gi")),
                plain("sidecar"),
                gpu(
                    "b",
                    Map.of(
                        ShareGpuResources.GPU_MILLI, "400", ShareGpuResources.GPU_MEMORY, "8000"),
                    Map.of()))));
    pods.add(
        edge(
            "memory-without-milli",
            List.of(gpu("main", Map.of(ShareGpuResources.GPU_MEMORY, "100"), Map.of()))));
    pods.add(
        edge(
            "binary-memory",
            List.of(
                gpu(
                    "main",
                    Map.of(
                        ShareGpuResources.GPU_MILLI, "250", ShareGpuResources.GPU_MEMORY, "10Gi"),
                    Map.of()))));
    pods.add(
        edge(
            "duplicate-names",
            List.of(
                gpu("x", Map.of(ShareGpuResources.GPU_MILLI, "100"), Map.of()),
                gpu("x", Map.of(ShareGpuResources.GPU_MILLI, "200"), Map.of()))));
    Pod init =
        edge(
            "gpu-init-container",
            List.of(gpu("main", Map.of(ShareGpuResources.GPU_MILLI, "100"), Map.of())));
    init.getSpec()
        .setInitContainers(
            List.of(
                plain("setup"),
                gpu("warmup", Map.of(ShareGpuResources.GPU_MILLI, "100"), Map.of())));
    pods.add(init);
    Pod badOptions =
        edge(
            "bad-options",
            List.of(gpu("main", Map.of(ShareGpuResources.GPU_MILLI, "500"), Map.of())));
    badOptions.getMetadata().getAnnotations().put(ShareGpuAnnotations.GPU_LIMIT_MILLI, "400");
    badOptions.getMetadata().getAnnotations().put(ShareGpuAnnotations.GPU_MODELS, "H100,A 100");
    pods.add(badOptions);
    Pod options =
        edge("options", List.of(gpu("main", Map.of(ShareGpuResources.GPU_MILLI, "500"), Map.of())));
    options.getMetadata().getAnnotations().put(ShareGpuAnnotations.GPU_LIMIT_MILLI, "700");
    options.getMetadata().getAnnotations().put(ShareGpuAnnotations.GPU_MODELS, "H100,A100");
    options.getMetadata().getAnnotations().put(ShareGpuAnnotations.GPU_UUIDS, "GPU-1,GPU-2");
    options.getMetadata().getAnnotations().put(ShareGpuAnnotations.GPU_EXCLUDE_UUIDS, "GPU-3");
    pods.add(options);
    pods.add(new Pod());
    return pods;
  }

  @Test
  void aReducedPodGivesTheSameRequestAssignmentAndIdentity() {
    int valid = 0;
    int invalid = 0;
    int noGpu = 0;
    int assigned = 0;
    for (Pod full : pods()) {
      Pod cached = CachedObjects.pod(full);
      String what =
          String.valueOf(full.getMetadata() == null ? null : full.getMetadata().getName());
      ParsedRequest parsed = PodGpuRequestParser.parse(full);
      assertThat(PodGpuRequestParser.parse(cached)).as(what).isEqualTo(parsed);
      if (parsed instanceof ParsedRequest.Valid v) {
        valid++;
        assertThat(DemandMapper.toDemand("k", "u", v.request()))
            .isEqualTo(
                DemandMapper.toDemand(
                    "k", "u", ((ParsedRequest.Valid) PodGpuRequestParser.parse(cached)).request()));
        String node = full.getSpec().getNodeName() == null ? "" : full.getSpec().getNodeName();
        var decoded =
            AssignmentAnnotations.decode(
                node, full.getMetadata().getAnnotations(), v.request().containerNames());
        assertThat(
                AssignmentAnnotations.decode(
                    node, cached.getMetadata().getAnnotations(), v.request().containerNames()))
            .as(what)
            .isEqualTo(decoded);
        if (decoded.isPresent()) {
          assigned++;
        }
      } else if (parsed instanceof ParsedRequest.Invalid) {
        invalid++;
      } else {
        noGpu++;
      }
      if (full.getMetadata() != null) {
        assertThat(DemandMapper.podKey(cached)).isEqualTo(DemandMapper.podKey(full));
        assertThat(cached.getMetadata().getUid()).isEqualTo(full.getMetadata().getUid());
        assertThat(cached.getMetadata().getResourceVersion())
            .isEqualTo(full.getMetadata().getResourceVersion());
        assertThat(cached.getMetadata().getDeletionTimestamp())
            .isEqualTo(full.getMetadata().getDeletionTimestamp());
        full.getMetadata()
            .getAnnotations()
            .forEach(
                (k, v) -> {
                  if (k.startsWith(ShareGpuResources.PREFIX)
                      && !k.equals(ShareGpuAnnotations.ASSIGNED_AT)) {
                    assertThat(cached.getMetadata().getAnnotations()).containsEntry(k, v);
                  }
                });
      }
      if (full.getSpec() != null) {
        assertThat(cached.getSpec().getNodeName()).isEqualTo(full.getSpec().getNodeName());
      }
      if (full.getStatus() != null) {
        assertThat(cached.getStatus().getPhase()).isEqualTo(full.getStatus().getPhase());
      }
      // reading a cached copy twice (the replay before readiness) gives the same again
      assertThat(PodGpuRequestParser.parse(CachedObjects.pod(cached))).isEqualTo(parsed);
    }
    assertThat(valid).isGreaterThan(150);
    assertThat(invalid).isEqualTo(5);
    assertThat(noGpu).isGreaterThan(30);
    assertThat(assigned).isGreaterThan(130);
  }

  @Test
  void aReducedPodDropsWhatTheExtenderDoesNotRead() {
    Pod full = CLUSTER.pod(0);
    Pod cached = CachedObjects.pod(full);
    assertThat(cached.getMetadata().getManagedFields()).isEmpty();
    // labels stay: preemption matches them against PodDisruptionBudgets
    assertThat(cached.getMetadata().getLabels()).isEqualTo(full.getMetadata().getLabels());
    assertThat(cached.getMetadata().getOwnerReferences()).isEmpty();
    assertThat(cached.getMetadata().getAnnotations())
        .containsKey(ShareGpuAnnotations.ASSIGNED_GPUS)
        .doesNotContainKey("prometheus.io/scrape");
    assertThat(cached.getSpec().getVolumes()).isEmpty();
    assertThat(cached.getSpec().getTolerations()).isEmpty();
    assertThat(cached.getSpec().getContainers())
        .extracting(Container::getName)
        .containsExactly("main");
    Container main = cached.getSpec().getContainers().get(0);
    assertThat(main.getEnv()).isEmpty();
    assertThat(main.getVolumeMounts()).isEmpty();
    assertThat(main.getResources().getLimits())
        .containsOnlyKeys(ShareGpuResources.GPU_MILLI, ShareGpuResources.GPU_MEMORY);
    assertThat(cached.getStatus().getContainerStatuses()).isEmpty();
    assertThat(cached.getStatus().getConditions()).isEmpty();
    int fullJson = JSON.asJson(full).length();
    int cachedJson = JSON.asJson(cached).length();
    assertThat(cachedJson).as("%d vs %d characters", cachedJson, fullJson).isLessThan(fullJson / 5);
  }

  @Test
  void aViewFedReducedPodsHoldsTheSameLedgerAsOneFedFullPods() {
    ClusterFixture full = view();
    ClusterFixture reduced = view();
    List<Pod> pods = pods();
    pods.removeIf(p -> p.getMetadata() == null);
    for (Pod p : pods) {
      full.onPod(p);
      reduced.onPod(CachedObjects.pod(p));
    }
    assertThat(allocations(reduced)).isEqualTo(allocations(full)).hasSizeGreaterThan(130);
    // deleting by the cached copy releases like deleting by the full object
    for (int i = 0; i < 50; i++) {
      full.onPodDelete(pods.get(i));
      reduced.onPodDelete(CachedObjects.pod(pods.get(i)));
    }
    assertThat(allocations(reduced)).isEqualTo(allocations(full));
    full.close();
    reduced.close();
  }

  @Test
  void reducedNodesAndGpuNodesKeepWhatTheLedgerReads() {
    Node node = CLUSTER.node(7);
    Node cachedNode = CachedObjects.node(node);
    assertThat(cachedNode.getMetadata().getName()).isEqualTo(node.getMetadata().getName());
    assertThat(cachedNode.getMetadata().getResourceVersion())
        .isEqualTo(node.getMetadata().getResourceVersion());
    assertThat(cachedNode.getStatus()).isNull();
    assertThat(cachedNode.getMetadata().getLabels()).isEmpty();

    GPUNode g = CLUSTER.gpuNode(7);
    GpuStatus mig = new GpuStatus("MIG-1", 8, "NVIDIA A100 1g.10gb", 9728);
    mig.setComputeMilli(143);
    mig.setMigProfile("1g.10gb");
    mig.setParentUuid("GPU-parent");
    mig.setHealthy(false);
    List<GpuStatus> gpus = new ArrayList<>(g.getStatus().getGpus());
    gpus.add(mig);
    g.getStatus().setGpus(gpus);
    GPUNode cached = CachedObjects.gpuNode(g);
    assertThat(GpuNodeMapper.toGpuNode(cached)).isEqualTo(GpuNodeMapper.toGpuNode(g));
    assertThat(cached.getMetadata().getManagedFields()).isEmpty();
    assertThat(cached.getStatus().getHeartbeatTime()).isNull();
    GPUNode noStatus = new GPUNode();
    noStatus.setMetadata(g.getMetadata());
    assertThat(GpuNodeMapper.toGpuNode(CachedObjects.gpuNode(noStatus)).gpus()).isEmpty();
  }

  private static ClusterFixture view() {
    ClusterFixture v =
        new ClusterFixture(null, PlacementPolicies.byName("binpack", 1), Duration.ofSeconds(30));
    for (int i = 0; i < 20; i++) {
      v.onNode(CachedObjects.node(CLUSTER.node(i)));
      v.onGpuNode(CachedObjects.gpuNode(CLUSTER.gpuNode(i)));
    }
    v.markReady();
    return v;
  }

  private static List<Allocation> allocations(ClusterFixture v) {
    return v.withLedger(
        l -> l.allocations().stream().sorted(Comparator.comparing(Allocation::podUid)).toList());
  }

  private static Pod deleting(Pod p) {
    p.getMetadata().setDeletionTimestamp("2026-12-01T00:00:00Z");
    p.getMetadata().setName(p.getMetadata().getName() + "-deleting");
    p.getMetadata().setUid(p.getMetadata().getUid() + "-d");
    return p;
  }

  private static Pod withPhase(Pod p, String phase) {
    p.getStatus().setPhase(phase);
    p.getMetadata().setName(p.getMetadata().getName() + "-" + phase);
    p.getMetadata().setUid(p.getMetadata().getUid() + "-" + phase);
    return p;
  }

  private static Pod edge(String name, List<Container> containers) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("edge")
        .withUid("uid-" + name)
        .withResourceVersion("7")
        .addToAnnotations("other.example.com/key", "value")
        .endMetadata()
        .withNewSpec()
        .withContainers(containers)
        .endSpec()
        .build();
  }

  private static Container gpu(String name, Map<String, String> limits, Map<String, String> req) {
    ContainerBuilder b = new ContainerBuilder().withName(name).withImage("busybox");
    b.withNewResources()
        .withLimits(quantities(limits))
        .withRequests(quantities(req))
        .endResources();
    return b.build();
  }

  private static Container plain(String name) {
    return gpu(name, Map.of("cpu", "1"), Map.of("cpu", "500m"));
  }

  private static Map<String, Quantity> quantities(Map<String, String> m) {
    Map<String, Quantity> q = new java.util.LinkedHashMap<>();
    m.forEach((k, v) -> q.put(k, new Quantity(v)));
    return q;
  }
}
