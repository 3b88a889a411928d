package io.sharegpu.dra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.policy.FgdPolicy;
import io.sharegpu.core.policy.Workload;
import io.sharegpu.dra.DraNames;
import io.sharegpu.dra.TraceReplay;
import io.sharegpu.dra.TraceReplay.Figures;
import io.sharegpu.dra.TraceReplay.Snapshot;
import io.sharegpu.dra.TraceReplay.TracePod;
import io.sharegpu.dra.allocate.ClaimAllocator;
import io.sharegpu.dra.allocate.DraInventory;
import io.sharegpu.dra.slice.ResourceSlicePublisher;
import io.sharegpu.dra.slice.ResourceSlices;
import io.sharegpu.testcluster.SimulatedNodes;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ShareGPU on DRA against a real kube-apiserver and kube-scheduler v1.34 with the
 * DRAConsumableCapacity feature gate: ResourceSlices for simulated 8-GPU nodes (no kubelet; pods
 * are bound, not run), one ResourceClaim per pod of a replayed slice of the Alibaba GPU trace
 * (shares ask compute and memory, each whole GPU is a request asking compute 1000), placed twice on
 * fresh, identical nodes:
 *
 * <ol>
 *   <li>by kube-scheduler alone: its DynamicResources plugin allocates the claims (first fit);
 *   <li>by ShareGPU: pods carry the {@code sharegpu.io/dra-placement} gate, {@link ClaimAllocator}
 *       allocates their claims with core's {@code sharegpu} policy and lifts the gate, and
 *       kube-scheduler binds each pod to the node of its claims and reserves them for it.
 * </ol>
 *
 * Both runs must keep every device within its capacity; the fragmentation figures of both are
 * printed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DraPlacementE2E {
  private static final Logger log = LoggerFactory.getLogger(DraPlacementE2E.class);

  private static final int NODES = 4;
  private static final int GPUS_PER_NODE = 8;
  private static final long GPU_MEMORY_MIB = 81920;
  private static final String MODEL = "NVIDIA A100-SXM4-80GB";
  private static final int MAX_PODS = 72;
  private static final long SEED = 42;
  private static final Duration POD_TIMEOUT = Duration.ofSeconds(30);
  private static final Map<String, Quantity> HOST =
      Map.of(
          "cpu", new Quantity("64"), "memory", new Quantity("512Gi"), "pods", new Quantity("110"));

  private static Path dir;
  private static TestCluster cluster;
  private static KubernetesClient client;

  @BeforeAll
  static void startControlPlane() throws IOException {
    dir = Files.createTempDirectory("sharegpu-dra-e2e-");
    cluster = TestCluster.start(dir, List.of("--feature-gates", "DRAConsumableCapacity=true"));
    client = cluster.client();
    cluster.startSchedulerWithoutExtender(
        TestCluster.repoRoot().resolve("examples/dra/scheduler-config.yaml"));
  }

  @AfterAll
  static void stopControlPlane() throws IOException {
    if (cluster != null) {
      cluster.stop();
      deleteTree(dir.resolve("etcd"));
    }
  }

  @Test
  @Order(1)
  void examplesApplyAndShareGpuAllocatesClaimsFromTemplates() throws IOException {
    Path examples = TestCluster.repoRoot().resolve("examples/dra");
    String ns = "dra-examples";
    cluster.createNamespace(ns);
    for (String file : List.of("deviceclass.yaml", "resourceslice-node1.yaml")) {
      for (HasMetadata item : load(examples.resolve(file))) {
        client.resource(item).fieldManager("dra-e2e").forceConflicts().serverSideApply();
      }
    }
    // the example slice keeps the alpha fields (DRAConsumableCapacity on)
    ResourceSlice example =
        client.resources(ResourceSlice.class).withName("node1-gpu.sharegpu.io-1").get();
    Device mig = example.getSpec().getDevices().get(0);
    assertThat(mig.getAllowMultipleAllocations()).isTrue();
    assertThat(mig.getCapacity().get(DraNames.MEMORY).getRequestPolicy().getValidRange().getStep())
        .isEqualTo(new Quantity("1Mi"));
    client.resources(ResourceSlice.class).withLabel(ResourceSlices.NODE_LABEL, "node1").delete();

    String node = "ex-node";
    SimulatedNodes.createReadyNode(client, node, HOST);
    List<GpuStatus> gpus = new ArrayList<>();
    gpus.add(new GpuStatus("GPU-ex-0", 0, MODEL, GPU_MEMORY_MIB));
    gpus.add(new GpuStatus("GPU-ex-1", 1, MODEL, GPU_MEMORY_MIB));
    gpus.add(new GpuStatus("GPU-ex-2", 2, MODEL, GPU_MEMORY_MIB));
    gpus.add(new GpuStatus("GPU-ex-3", 3, MODEL, GPU_MEMORY_MIB)); // split into two MIG instances
    for (int i = 0; i < 2; i++) {
      GpuStatus instance = new GpuStatus("MIG-ex-3-" + i, 4 + i, MODEL, 40192);
      instance.setParentUuid("GPU-ex-3");
      instance.setMigProfile("3g.40gb");
      instance.setComputeMilli(428);
      gpus.add(instance);
    }
    ResourceSlicePublisher publisher = new ResourceSlicePublisher(client);
    assertThat(publisher.publish(node, gpus, 1)).hasSize(5); // 3 GPUs, 2 MIG instances
    try {
      for (String file :
          List.of(
              "claimtemplate-share.yaml",
              "claimtemplate-whole.yaml",
              "pod-share.yaml",
              "pod-whole.yaml")) {
        for (HasMetadata item : load(examples.resolve(file))) {
          item.getMetadata().setNamespace(ns);
          client.resource(item).create();
        }
      }
      // kube-controller-manager's resourceclaim controller creates the claims of gated pods too
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  client.pods().inNamespace(ns).list().getItems().stream()
                      .allMatch(
                          p ->
                              p.getStatus().getResourceClaimStatuses() != null
                                  && !p.getStatus().getResourceClaimStatuses().isEmpty()));
      ClaimAllocator allocator =
          new ClaimAllocator(client, PlacementPolicies.byName("sharegpu", SEED));
      Map<String, ClaimAllocator.Outcome> outcomes = allocator.allocatePending(ns);
      assertThat(outcomes).containsOnlyKeys("notebook-quarter", "trainer-2gpu");
      assertThat(outcomes.values()).allMatch(o -> o instanceof ClaimAllocator.Placed);
      assertThat(waitForPod(ns, "notebook-quarter")).isEqualTo(node);
      assertThat(waitForPod(ns, "trainer-2gpu")).isEqualTo(node);

      Map<String, ResourceClaim> claims = new HashMap<>();
      for (ResourceClaim c :
          client.resources(ResourceClaim.class).inNamespace(ns).list().getItems()) {
        claims.put(c.getMetadata().getName().startsWith("notebook") ? "share" : "whole", c);
      }
      List<DeviceRequestAllocationResult> share =
          claims.get("share").getStatus().getAllocation().getDevices().getResults();
      assertThat(share).hasSize(1);
      assertThat(share.get(0).getConsumedCapacity())
          .containsEntry(DraNames.COMPUTE, new Quantity("250"))
          .containsEntry(DraNames.MEMORY, new Quantity("10240Mi"));
      List<DeviceRequestAllocationResult> whole =
          claims.get("whole").getStatus().getAllocation().getDevices().getResults();
      assertThat(whole)
          .extracting(DeviceRequestAllocationResult::getRequest)
          .containsExactlyInAnyOrder("gpu-0", "gpu-1");
      assertThat(whole)
          .extracting(DeviceRequestAllocationResult::getDevice)
          .doesNotHaveDuplicates()
          .allMatch(d -> d.startsWith("gpu-ex-"), "whole GPUs, no MIG instance");
      for (ResourceClaim c : claims.values()) {
        assertThat(c.getStatus().getReservedFor()).hasSize(1);
      }
    } finally {
      client.pods().inNamespace(ns).withGracePeriod(0).delete();
      publisher.unpublish(node);
      client.nodes().withName(node).delete();
    }
  }

  @Test
  @Order(2)
  void firstFitAndShareGpuPlacementOfTheSameClaims() throws IOException {
    ResourceSlicePublisher publisher = new ResourceSlicePublisher(client);
    publisher.publishDeviceClass();
    List<TracePod> trace =
        TraceReplay.slice((long) NODES * GPUS_PER_NODE * 1000, GPUS_PER_NODE, MAX_PODS, SEED);
    Workload workload = Workload.fit(TraceReplay.shapes(trace), FgdPolicy.COVERAGE);

    Figures firstFit = run("ff", trace, workload, null);
    ClaimAllocator allocator =
        new ClaimAllocator(client, PlacementPolicies.byName("sharegpu", SEED));
    Figures shareGpu = run("sg", trace, workload, allocator);

    String table =
        String.format(
            Locale.ROOT,
            "DRA placement of %d trace pods (%d nodes x %d GPUs, seed %d):%n%s%n%s%n%s",
            trace.size(),
            NODES,
            GPUS_PER_NODE,
            SEED,
            Figures.HEADER,
            firstFit.row("kube-scheduler (DRA first fit)"),
            shareGpu.row("ShareGPU placement (sharegpu)"));
    System.out.println(table);
    log.info(table);

    for (Figures f : List.of(firstFit, shareGpu)) {
      assertThat(f.placed()).as("pods placed").isGreaterThan(trace.size() / 3);
      assertThat(f.end().sharedGpus()).as("GPUs holding two shares or more").isGreaterThan(0);
    }
  }

  /** Places the trace on fresh nodes {@code prefix-node-i}; ShareGPU allocates when given. */
  private Figures run(
      String prefix, List<TracePod> trace, Workload workload, ClaimAllocator allocator) {
    String ns = "dra-" + prefix;
    cluster.createNamespace(ns);
    ResourceSlicePublisher publisher = new ResourceSlicePublisher(client);
    List<String> nodes = new ArrayList<>();
    for (int n = 0; n < NODES; n++) {
      String node = prefix + "-node-" + n;
      nodes.add(node);
      SimulatedNodes.createReadyNode(client, node, HOST);
      List<GpuStatus> gpus = new ArrayList<>();
      for (int i = 0; i < GPUS_PER_NODE; i++) {
        gpus.add(new GpuStatus("GPU-" + node + "-" + i, i, MODEL, GPU_MEMORY_MIB));
      }
      List<ResourceSlice> kept = publisher.publish(node, gpus, 1);
      assertThat(kept).hasSize(GPUS_PER_NODE);
      // the alpha fields survive only with the DRAConsumableCapacity gate on
      Device first = kept.get(0).getSpec().getDevices().get(0);
      assertThat(first.getAllowMultipleAllocations()).isTrue();
      assertThat(
              first.getCapacity().get(DraNames.COMPUTE).getRequestPolicy().getValidRange().getMax())
          .isEqualTo(new Quantity("1000"));
    }
    long capacityMilli = (long) NODES * GPUS_PER_NODE * 1000;
    int placed = 0;
    int failed = 0;
    long arrived = 0;
    double firstFailurePct = Double.NaN;
    Snapshot at80 = null;
    for (int k = 0; k < trace.size(); k++) {
      TracePod t = trace.get(k);
      String name = "p-" + k;
      arrived += (long) t.numGpu() * Math.min(1000, t.gpuMilli());
      client.resource(claim(ns, name, t)).create();
      Pod pod = client.resource(pod(ns, name, allocator != null)).create();
      boolean ok;
      if (allocator != null) {
        ClaimAllocator.Outcome o = allocator.allocate(pod);
        ok = o instanceof ClaimAllocator.Placed;
        if (o instanceof ClaimAllocator.Placed placedOn) {
          assertThat(waitForPod(ns, name))
              .as("kube-scheduler keeps %s to the node of its claim", name)
              .isEqualTo(placedOn.node());
        } else {
          log.info("{}: {} ({})", name, o, t);
        }
      } else {
        ok = waitForPod(ns, name) != null;
      }
      if (ok) {
        placed++;
      } else {
        failed++;
        if (Double.isNaN(firstFailurePct)) {
          firstFailurePct = arrived * 100.0 / capacityMilli;
        }
      }
      if (at80 == null && arrived * 100 >= 80 * capacityMilli) {
        at80 = Snapshot.of(ledger(ns), nodes, workload);
      }
    }
    // every allocated claim of a bound pod is reserved for it (kube-scheduler's PreBind)
    for (Pod p : client.pods().inNamespace(ns).list().getItems()) {
      if (p.getSpec().getNodeName() == null) {
        continue;
      }
      ResourceClaim c =
          client
              .resources(ResourceClaim.class)
              .inNamespace(ns)
              .withName(p.getMetadata().getName())
              .get();
      assertThat(c.getStatus().getAllocation()).isNotNull();
      assertThat(c.getStatus().getReservedFor())
          .anyMatch(r -> p.getMetadata().getUid().equals(r.getUid()));
      assertThat(c.getMetadata().getFinalizers()).contains(DraNames.CLAIM_FINALIZER);
    }
    List<ResourceSlice> slices = client.resources(ResourceSlice.class).list().getItems();
    List<ResourceClaim> claims =
        client.resources(ResourceClaim.class).inNamespace(ns).list().getItems();
    assertWithinCapacity(slices, claims);
    DraInventory inventory = DraInventory.of(slices, claims);
    Ledger ledger = inventory.ledger();
    assertThat(inventory.problems()).as("over-committed GPUs").isEmpty();
    Snapshot end = Snapshot.of(ledger, nodes, workload);
    Figures f = new Figures(placed, failed, firstFailurePct, end, at80 == null ? end : at80);

    // leave the nodes to the next run: no pod of this run may land on them
    client.pods().inNamespace(ns).withGracePeriod(0).delete();
    for (String node : nodes) {
      publisher.unpublish(node);
      client.nodes().withName(node).delete();
    }
    return f;
  }

  /** The ledger of the GPUs now published and the claims of {@code ns}. */
  private static Ledger ledger(String ns) {
    return DraInventory.of(
            client.resources(ResourceSlice.class).list().getItems(),
            client.resources(ResourceClaim.class).inNamespace(ns).list().getItems())
        .ledger();
  }

  /** Sums each device's consumed capacity over the claims: never above the published value. */
  private static void assertWithinCapacity(List<ResourceSlice> slices, List<ResourceClaim> claims) {
    Map<String, Map<String, Quantity>> capacity = new HashMap<>();
    for (ResourceSlice s : slices) {
      for (Device d : s.getSpec().getDevices()) {
        Map<String, Quantity> c = new HashMap<>();
        d.getCapacity().forEach((k, v) -> c.put(k, v.getValue()));
        capacity.put(s.getSpec().getPool().getName() + "/" + d.getName(), c);
      }
    }
    Map<String, Map<String, java.math.BigDecimal>> used = new HashMap<>();
    for (ResourceClaim c : claims) {
      if (c.getStatus() == null || c.getStatus().getAllocation() == null) {
        continue;
      }
      for (DeviceRequestAllocationResult r :
          c.getStatus().getAllocation().getDevices().getResults()) {
        String key = r.getPool() + "/" + r.getDevice();
        assertThat(r.getShareID())
            .as("share ID of %s on %s", c.getMetadata().getName(), key)
            .isNotBlank();
        assertThat(r.getConsumedCapacity()).as("consumed capacity of %s", key).isNotEmpty();
        r.getConsumedCapacity()
            .forEach(
                (k, v) ->
                    used.computeIfAbsent(key, x -> new HashMap<>())
                        .merge(k, Quantity.getAmountInBytes(v), java.math.BigDecimal::add));
      }
    }
    used.forEach(
        (device, byName) ->
            byName.forEach(
                (k, v) ->
                    assertThat(v)
                        .as("%s of %s", k, device)
                        .isLessThanOrEqualTo(
                            Quantity.getAmountInBytes(capacity.get(device).get(k)))));
  }

  private static List<HasMetadata> load(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return client.load(in).items();
    }
  }

  /**
   * Waits until the pod is bound (returns its node) or kube-scheduler found its claims fit on no
   * node (returns null); other reasons to wait (a claim not yet seen) are waited out.
   */
  private static String waitForPod(String ns, String name) {
    long deadline = System.nanoTime() + POD_TIMEOUT.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      Pod p = client.pods().inNamespace(ns).withName(name).get();
      if (p.getSpec().getNodeName() != null) {
        return p.getSpec().getNodeName();
      }
      if (p.getStatus() != null && p.getStatus().getConditions() != null) {
        for (var c : p.getStatus().getConditions()) {
          if ("PodScheduled".equals(c.getType())
              && "False".equals(c.getStatus())
              && "Unschedulable".equals(c.getReason())) {
            last = c.getMessage();
            if (last != null && last.contains("cannot allocate all claims")) {
              return null;
            }
          }
        }
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new AssertionError(
        "pod "
            + ns
            + "/"
            + name
            + " neither bound nor without room for its claims after "
            + POD_TIMEOUT
            + "; last condition: "
            + last);
  }

  /**
   * A share asks compute and memory (its part of the GPU's memory); k whole GPUs are k requests of
   * count 1 asking compute 1000 each (see {@code ResourceSlices#forNode} for why not one request of
   * count k).
   */
  private static ResourceClaim claim(String ns, String name, TracePod t) {
    List<DeviceRequest> requests = new ArrayList<>();
    if (t.gpuMilli() < 1000) {
      requests.add(
          request(
              "gpu",
              Map.of(
                  DraNames.COMPUTE,
                  new Quantity(Integer.toString(t.gpuMilli())),
                  DraNames.MEMORY,
                  new Quantity(t.gpuMilli() * GPU_MEMORY_MIB / 1000 + "Mi"))));
    } else {
      for (int i = 0; i < t.numGpu(); i++) {
        requests.add(request("gpu-" + i, Map.of(DraNames.COMPUTE, new Quantity("1000"))));
      }
    }
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ns)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .withRequests(requests)
        .endDevices()
        .endSpec()
        .build();
  }

  private static DeviceRequest request(String name, Map<String, Quantity> capacity) {
    return new DeviceRequestBuilder()
        .withName(name)
        .withNewExactly()
        .withDeviceClassName(DraNames.DEVICE_CLASS)
        .withCount(1L)
        .withNewCapacity()
        .withRequests(capacity)
        .endCapacity()
        .endExactly()
        .build();
  }

  private static Pod pod(String ns, String name, boolean gated) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(ns)
            .endMetadata()
            .withNewSpec()
            .withSchedulerName("default-scheduler")
            .addNewContainer()
            .withName("main")
            .withImage("registry.local/sharegpu/none:0")
            .withNewResources()
            .addNewClaim()
            .withName("gpu")
            .endClaim()
            .endResources()
            .endContainer()
            .addNewResourceClaim()
            .withName("gpu")
            .withResourceClaimName(name)
            .endResourceClaim()
            .endSpec();
    if (gated) {
      b.editSpec()
          .addNewSchedulingGate()
          .withName(DraNames.SCHEDULING_GATE)
          .endSchedulingGate()
          .endSpec();
    }
    return b.build();
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
