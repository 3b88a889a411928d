package io.sharegpu.kubectl.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.kubectl.Fixtures;
import io.sharegpu.kubectl.ShareGpuCommand;
import io.sharegpu.kubectl.render.Style;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestNodes;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The plugin's commands, run in this JVM, against the real kube-apiserver from testcluster:
 * GPUNodes and simulated nodes as API objects, pods carrying the extender's assignment annotations,
 * cordon and uncordon writing the GPUNode, drain evicting through the Eviction API and stopped by a
 * PodDisruptionBudget, explain and top through the API server's service and pod proxies to HTTP
 * endpoints on this machine's non-loopback address (the API server refuses to proxy to loopback).
 * There is no kube-controller-manager: the test writes the PDB status the disruption controller
 * would, and pods' Running status as a kubelet would.
 */
class KubectlPluginE2E {

  private static final String NS = "kubectl-e2e";
  private static final String SYSTEM_NS = "kubectl-e2e-system";
  private static final String N1 = "kp-n1";
  private static final String N2 = "kp-n2";
  private static final String N3 = "kp-n3";
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static @Nullable HttpServer server;
  private static @Nullable String hostAddress;
  private static final List<String> requests = new CopyOnWriteArrayList<>();

  record Result(int status, String out, String err) {}

  @BeforeAll
  static void startAll() throws IOException {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    for (String ns : List.of(NS, SYSTEM_NS)) {
      cluster.applyNamespace(ns);
    }
    for (String n : List.of(N1, N2, N3)) {
      TestNodes.gpuNode(n)
          .uuids(i -> Fixtures.uuid(n, i))
          .gpus(4, "NVIDIA H100 80GB HBM3", Fixtures.H100_MIB)
          .create(client);
    }
    create(Fixtures.assignedPod(NS, "notebook", N1, 250, 10240, 500, Fixtures.uuid(N1, 0)));
    create(Fixtures.assignedPod(NS, "trainer", N1, 500, 40960, 500, Fixtures.uuid(N1, 0)));
    create(Fixtures.assignedPod(NS, "whole", N2, 1000, 0, 1000, Fixtures.uuid(N2, 3)));
    create(Fixtures.pod(NS, "pending", "", 750, 81559, Map.of()));
    hostAddress = nonLoopbackAddress();
    if (hostAddress != null) {
      server = HttpServer.create(new InetSocketAddress(hostAddress, 0), 0);
      server.createContext(
          "/",
          exchange -> {
            String path = exchange.getRequestURI().getPath();
            requests.add(path);
            String body;
            int code = 200;
            if (path.equals("/debug/pods/" + NS + "/pending/explain")) {
              body = EXPLANATION;
            } else if (path.equals("/metrics")) {
              body = METRICS;
            } else {
              code = 404;
              body = "no " + path;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(code, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(bytes);
            }
          });
      server.start();
    }
  }

  @AfterAll
  static void stopAll() {
    if (server != null) {
      server.stop(0);
    }
    if (client != null) {
      for (String ns : List.of(NS, SYSTEM_NS)) {
        client.namespaces().withName(ns).delete();
      }
      for (String n : List.of(N1, N2, N3)) {
        client.nodes().withName(n).delete();
        client.resources(GPUNode.class).withName(n).delete();
      }
      client.rbac().clusterRoleBindings().withName("kubectl-e2e-alice").delete();
      client.rbac().clusterRoles().withName("kubectl-e2e-alice").delete();
    }
  }

  // ------------------------------------------------------------------------------- read commands

  @Test
  void nodesShowsEachGpuWithItsPodsFromTheApiServer() {
    Result r = plugin("nodes", N1, N2);
    assertThat(r.status()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).startsWith("NODE    GPU   MODEL");
    assertThat(lines.get(1))
        .startsWith("kp-n1   0     NVIDIA H100 80GB HBM3")
        .contains("[######..] 0.75/1", "50.0/79.6Gi", NS + "/notebook," + NS + "/trainer");
    assertThat(lines.get(8))
        .startsWith("kp-n2   3")
        .contains("[########] 1/1", "kubectl-e2e/whole");
    assertThat(lines.get(9)).startsWith("2 nodes, 8 GPUs: compute 1.75/8 allocated");

    JsonNode json = JsonMapper.builder().build().readTree(plugin("nodes", N1, "-o", "json").out());
    assertThat(json.size()).isEqualTo(1);
    assertThat(json.get(0).get("gpus").get(0).get("usedMemoryMib").asLong()).isEqualTo(51200);
    assertThat(plugin("nodes", N2, "-o", "yaml").out()).contains("name: \"kp-n2\"");
  }

  @Test
  void podsShowsNodeGpusShareLimitMemoryAndMpsCaps() {
    Result r = plugin("pods", "-n", NS);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines().findFirst().orElseThrow()).startsWith("NAME ");
    assertThat(r.out())
        .containsPattern("notebook +main +kp-n1 +GPU-kp-n1-0 +0.25 +0.5 +10Gi +50% +0=10240M")
        .containsPattern("whole +main +kp-n2 +GPU-kp-n2-3 +1 +1 +- +100% +-")
        .doesNotContain("pending");
    assertThat(plugin("pods", "-A").out()).containsPattern("(?m)^kubectl-e2e +notebook ");
  }

  // -------------------------------------------------------------------------------------- cordon

  @Test
  void cordonAndUncordonEditTheGpuNodeAndConcurrentCordonsAllLand() throws Exception {
    String gpu = Fixtures.uuid(N2, 0);
    Result r = plugin("cordon", gpu, "--reason", "Xid 79");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("gpu/" + gpu + " on node kp-n2 cordoned\n");
    List<GpuCordon> cordons = cordons(N2);
    assertThat(cordons).extracting(GpuCordon::getUuid).containsExactly(gpu);
    assertThat(cordons.get(0).getReason()).isEqualTo("Xid 79");
    assertThat(Instant.parse(cordons.get(0).getTime())).isBefore(Instant.now().plusSeconds(1));
    assertThat(plugin("nodes", N2).out().lines().toList().get(1)).endsWith("Cordoned");
    assertThat(plugin("cordon", gpu, "--reason", "Xid 79").out()).contains("already cordoned");
    // without --reason a cordoned GPU keeps its reason
    assertThat(plugin("cordon", gpu).out()).contains("already cordoned");
    assertThat(cordons(N2).get(0).getReason()).isEqualTo("Xid 79");

    // three cordons of the same GPUNode at once: each update carries the resourceVersion it
    // read, the losers get 409 Conflict, read again and retry
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<Result>> runs = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        String uuid = Fixtures.uuid(N2, i);
        runs.add(pool.submit(() -> plugin("cordon", uuid, "--reason", "maintenance")));
      }
      for (Future<Result> f : runs) {
        assertThat(f.get().status()).as(f.get().err()).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(cordons(N2))
        .extracting(GpuCordon::getUuid)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, 4).mapToObj(i -> Fixtures.uuid(N2, i)).toList());

    assertThat(plugin("uncordon", gpu).out())
        .isEqualTo("gpu/" + gpu + " on node kp-n2 uncordoned\n");
    assertThat(cordons(N2)).extracting(GpuCordon::getUuid).doesNotContain(gpu).hasSize(3);
    assertThat(plugin("uncordon", gpu).out()).contains("was not cordoned");
    Result unknown = plugin("cordon", "GPU-nowhere");
    assertThat(unknown.status()).isEqualTo(1);
    assertThat(unknown.err()).contains("no GPUNode has a GPU with UUID GPU-nowhere");
  }

  // --------------------------------------------------------------------------------------- drain

  @Test
  void drainCordonsAndEvictsThePodsOfTheGpuOnly() {
    String gpu = Fixtures.uuid(N3, 2);
    Pod victim = running(Fixtures.assignedPod(NS, "victim", N3, 300, 1024, 300, gpu));
    Pod neighbour =
        running(Fixtures.assignedPod(NS, "neighbour", N3, 300, 1024, 300, Fixtures.uuid(N3, 3)));

    Result dry = plugin("drain", gpu, "--dry-run");
    assertThat(dry.status()).as(dry.err()).isZero();
    assertThat(dry.out()).contains("pod/" + NS + "/victim evicted (dry run)");
    assertThat(deletionTimestamp(victim)).isNull();
    assertThat(cordons(N3)).extracting(GpuCordon::getUuid).doesNotContain(gpu);

    Result r = plugin("drain", gpu, "--timeout", "30s");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("gpu/" + gpu + " on node kp-n3 cordoned")
        .contains("pod/" + NS + "/victim evicted")
        .contains("gpu/" + gpu + " drained");
    // bound to a node, so deleted gracefully: the kubelet would finish it
    assertThat(deletionTimestamp(victim)).isNotNull();
    assertThat(deletionTimestamp(neighbour)).isNull();
    assertThat(cordons(N3))
        .filteredOn(c -> gpu.equals(c.getUuid()))
        .extracting(GpuCordon::getReason)
        .containsExactly("drained");
  }

  @Test
  void drainIsBlockedByADisruptionBudgetAndSaysWhichPodsStayed() {
    String gpu = Fixtures.uuid(N3, 1);
    Pod guarded = Fixtures.assignedPod(NS, "guarded", N3, 400, 1024, 400, gpu);
    guarded.getMetadata().setLabels(Map.of("app", "guarded"));
    guarded = running(guarded);
    PodDisruptionBudget pdb =
        client
            .policy()
            .v1()
            .podDisruptionBudget()
            .inNamespace(NS)
            .resource(
                new PodDisruptionBudgetBuilder()
                    .withNewMetadata()
                    .withName("guarded")
                    .endMetadata()
                    .withNewSpec()
                    .withNewMinAvailable(1)
                    .withNewSelector()
                    .withMatchLabels(Map.of("app", "guarded"))
                    .endSelector()
                    .endSpec()
                    .build())
            .create();
    // what the disruption controller would write: one healthy pod, one needed, none to spare
    pdb.setStatus(
        new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder()
            .withObservedGeneration(pdb.getMetadata().getGeneration())
            .withCurrentHealthy(1)
            .withDesiredHealthy(1)
            .withExpectedPods(1)
            .withDisruptionsAllowed(0)
            .build());
    client.policy().v1().podDisruptionBudget().inNamespace(NS).resource(pdb).updateStatus();

    assertThat(plugin("cordon", gpu, "--reason", "Xid 79").status()).isZero();
    Result dry = plugin("drain", gpu, "--dry-run");
    assertThat(dry.status()).isEqualTo(1);
    assertThat(dry.err()).contains("pod/" + NS + "/guarded: Cannot evict pod");

    long start = System.nanoTime();
    Result r = plugin("drain", gpu, "--timeout", "4s");
    long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err())
        .contains("error when evicting pod/" + NS + "/guarded (will retry after")
        .contains("error: 1 pod(s) could not be evicted from gpu/" + gpu + " within 4s:")
        .contains(
            "pod/"
                + NS
                + "/guarded: Cannot evict pod as it would violate the pod's disruption budget");
    assertThat(seconds).isBetween(3L, 20L);
    assertThat(deletionTimestamp(guarded)).isNull();
    // the drain kept the operator's reason
    assertThat(cordons(N3))
        .filteredOn(c -> gpu.equals(c.getUuid()))
        .extracting(GpuCordon::getReason)
        .containsExactly("Xid 79");
  }

  // ------------------------------------------------------------------------------------- explain

  @Test
  void explainAsksTheExtenderThroughTheServiceProxy() {
    assumeTrue(hostAddress != null, "no non-loopback IPv4 address for the API server to proxy to");
    extenderService();
    Result r =
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> plugin("explain", "pending", "-n", NS),
                x -> x.status() == 0 && x.out().startsWith("Pod "));
    assertThat(r.out())
        .startsWith("Pod kubectl-e2e/pending: fits on 0 of 2 nodes\n")
        .containsPattern(
            "kp-n1 +no +no GPU has 81559 MiB of memory free +would preempt kubectl-e2e/trainer")
        .contains("  kp-n1: GPU 0 (GPU-kp-n1-0): 30359 MiB free, 81559 MiB needed")
        .endsWith("Fits nowhere now; with preemption: kp-n1 (would preempt kubectl-e2e/trainer)\n");
    assertThat(requests).contains("/debug/pods/" + NS + "/pending/explain");
    assertThat(plugin("explain", "pending", "-n", NS, "-o", "json").out().strip())
        .isEqualTo(EXPLANATION.strip());
  }

  @Test
  void explainWithoutServiceProxyRightsSaysSoAndFallsBackToTheEvents() {
    extenderService();
    client
        .v1()
        .events()
        .inNamespace(NS)
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName("pending.failed")
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("Pod")
                .withNamespace(NS)
                .withName("pending")
                .endInvolvedObject()
                .withReason("FailedScheduling")
                .withType("Warning")
                .withMessage("0/2 nodes are available: 2 no GPU has 81559 MiB of memory free.")
                .withLastTimestamp("2026-12-05T08:00:00Z")
                .withCount(3)
                .build())
        .createOr(e -> e.update());
    // alice may read pods and events and find the Service, but not use services/proxy
    client
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("kubectl-e2e-alice")
                .endMetadata()
                .withRules(
                    new PolicyRuleBuilder()
                        .withApiGroups("")
                        .withResources("pods", "events", "services")
                        .withVerbs("get", "list")
                        .build())
                .build())
        .serverSideApply();
    client
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("kubectl-e2e-alice")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "kubectl-e2e-alice")
                .addNewSubject()
                .withKind("User")
                .withName("alice")
                .withApiGroup("rbac.authorization.k8s.io")
                .endSubject()
                .build())
        .serverSideApply();
    Result r =
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> plugin("explain", "pending", "-n", NS, "--as", "alice"),
                x -> x.status() == 0);
    assertThat(r.err())
        .contains(
            "warning: you may not reach the scheduler extender through the API server: needs get"
                + " on services/proxy for service "
                + SYSTEM_NS
                + "/sharegpu-extender")
        .contains("Falling back to the pod's FailedScheduling Events.");
    assertThat(r.out())
        .isEqualTo(
            "FailedScheduling Events of pod kubectl-e2e/pending (latest last):\n"
                + "  2026-12-05T08:00:00Z (x3)  0/2 nodes are available: 2 no GPU has 81559 MiB of"
                + " memory free.\n");

    Result missing =
        plugin(
            "explain",
            "pending",
            "-n",
            NS,
            "--extender-namespace",
            NS,
            "--extender-service",
            "nope");
    assertThat(missing.err()).contains("warning: no scheduler extender Service found");
    assertThat(missing.out()).contains("FailedScheduling Events of pod kubectl-e2e/pending");
  }

  // ----------------------------------------------------------------------------------------- top

  @Test
  void topReadsTheNodeAgentsMetricsThroughThePodProxy() {
    Result none = plugin("top", "-n", NS, "--agent-selector", "app=no-such-agent");
    assertThat(none.status()).isEqualTo(1);
    assertThat(none.err())
        .startsWith(
            "No node agent is reachable: no pods match app=no-such-agent in any namespace.");

    assumeTrue(hostAddress != null, "no non-loopback IPv4 address for the API server to proxy to");
    Pod agent =
        new PodBuilder()
            .withNewMetadata()
            .withName("node-agent-kp-n1")
            .withNamespace(SYSTEM_NS)
            .withLabels(Map.of("app.kubernetes.io/component", "node-agent"))
            .endMetadata()
            .withNewSpec()
            .withNodeName(N1)
            .addNewContainer()
            .withName("node-agent")
            .withImage("sharegpu/node-agent")
            .withPorts(
                new ContainerPortBuilder()
                    .withName("metrics")
                    .withContainerPort(server.getAddress().getPort())
                    .build())
            .endContainer()
            .endSpec()
            .build();
    agent = client.pods().resource(agent).create();
    agent.setStatus(
        new io.fabric8.kubernetes.api.model.PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(hostAddress)
            .withPodIPs(
                new io.fabric8.kubernetes.api.model.PodIPBuilder().withIp(hostAddress).build())
            .build());
    client.pods().resource(agent).updateStatus();

    Result r = plugin("top", "-n", NS);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines().findFirst().orElseThrow())
        .matches("NAME +CONTAINER +NODE +GPU +MEMORY\\(USED/ASSIGNED\\) +GPU-UTIL");
    assertThat(r.out())
        .containsPattern("notebook +main +kp-n1 +GPU-kp-n1-0 +\\[######\\.\\.\\] 7168/10240Mi +42%")
        .containsPattern(
            "trainer +main +kp-n1 +GPU-kp-n1-0 +\\[#\\.\\.\\.\\.\\.\\.\\.\\] 2048/40960Mi +42%");
    assertThat(requests).contains("/metrics");
  }

  // ------------------------------------------------------------------------------------- helpers

  private static Result plugin(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--kubeconfig");
    all.add(cluster.kubeconfig().toString());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        ShareGpuCommand.run(
            new PrintWriter(out), new PrintWriter(err), Style.PLAIN, all.toArray(String[]::new));
    return new Result(status, out.toString(), err.toString());
  }

  private static void create(Pod pod) {
    client.pods().resource(pod).create();
  }

  /** Creates the pod and writes the status a kubelet would: Running and Ready. */
  private static Pod running(Pod pod) {
    Pod created = client.pods().resource(pod).create();
    created.setStatus(
        new io.fabric8.kubernetes.api.model.PodStatusBuilder()
            .withPhase("Running")
            .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build())
            .build());
    return client.pods().resource(created).updateStatus();
  }

  private static @Nullable String deletionTimestamp(Pod pod) {
    Pod now = client.pods().inNamespace(NS).withName(pod.getMetadata().getName()).get();
    return now == null ? "gone" : now.getMetadata().getDeletionTimestamp();
  }

  private static List<GpuCordon> cordons(String node) {
    return client.resources(GPUNode.class).withName(node).get().getSpec().getCordonedGpus();
  }

  /** A Service without selector, labelled as the chart labels the extender's, and endpoints. */
  private static synchronized void extenderService() {
    if (client.services().inNamespace(SYSTEM_NS).withName("sharegpu-extender").get() != null) {
      return;
    }
    int port = server == null ? 8080 : server.getAddress().getPort();
    String ip = hostAddress == null ? "192.0.2.1" : hostAddress;
    // the service proxy only dials an endpoint whose targetRef is a pod with that IP
    Pod extender =
        client
            .pods()
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("sharegpu-extender-0")
                    .withNamespace(SYSTEM_NS)
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(N1)
                    .addNewContainer()
                    .withName("extender")
                    .withImage("sharegpu/scheduler-extender")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    extender.setStatus(
        new io.fabric8.kubernetes.api.model.PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(ip)
            .withPodIPs(new io.fabric8.kubernetes.api.model.PodIPBuilder().withIp(ip).build())
            .build());
    client.pods().resource(extender).updateStatus();
    client
        .services()
        .inNamespace(SYSTEM_NS)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("sharegpu-extender")
                .withLabels(
                    Map.of(
                        "app.kubernetes.io/component", "extender",
                        "app.kubernetes.io/part-of", "sharegpu"))
                .endMetadata()
                .withNewSpec()
                .addNewPort()
                .withName("management")
                .withPort(8080)
                .withNewTargetPort(port)
                .endPort()
                .endSpec()
                .build())
        .create();
    client
        .endpoints()
        .inNamespace(SYSTEM_NS)
        .resource(
            new EndpointsBuilder()
                .withNewMetadata()
                .withName("sharegpu-extender")
                .endMetadata()
                .addNewSubset()
                .addNewAddress()
                .withIp(ip)
                .withNewTargetRef()
                .withKind("Pod")
                .withNamespace(SYSTEM_NS)
                .withName("sharegpu-extender-0")
                .endTargetRef()
                .endAddress()
                .addNewPort()
                .withName("management")
                .withPort(port)
                .endPort()
                .endSubset()
                .build())
        .create();
    client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(SYSTEM_NS)
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("sharegpu-extender-1")
                .withLabels(Map.of("kubernetes.io/service-name", "sharegpu-extender"))
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses(ip)
                .withNewTargetRef()
                .withKind("Pod")
                .withNamespace(SYSTEM_NS)
                .withName("sharegpu-extender-0")
                .endTargetRef()
                .withNewConditions()
                .withReady(true)
                .withServing(true)
                .withTerminating(false)
                .endConditions()
                .endEndpoint()
                .addNewPort()
                .withName("management")
                .withPort(port)
                .withProtocol("TCP")
                .endPort()
                .build())
        .create();
  }

  /** Returns an IPv4 address of this machine that is neither loopback nor link-local. */
  private static @Nullable String nonLoopbackAddress() throws IOException {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!nic.isUp() || nic.isLoopback()) {
        continue;
      }
      for (InetAddress a : Collections.list(nic.getInetAddresses())) {
        if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
          return a.getHostAddress();
        }
      }
    }
    return null;
  }

  /** What the extender's DebugController answers for the pending pod (its PodExplanation). */
  private static final String EXPLANATION =
      """
      {"pod":"kubectl-e2e/pending","requestErrors":[],"heldOn":null,"nodes":[\
      {"node":"kp-n1","fits":false,"reason":"no GPU has 81559 MiB of memory free",\
      "gpus":["GPU 0 (GPU-kp-n1-0): 30359 MiB free, 81559 MiB needed"],\
      "preemption":"would preempt kubectl-e2e/trainer"},\
      {"node":"kp-n2","fits":false,"reason":"no GPU has 81559 MiB of memory free",\
      "gpus":[],"preemption":"no preemption: no pod of lower priority frees enough"}]}
      """;

  /** What a node agent serves on /metrics (see node-agent's UsageMetrics). */
  private static final String METRICS =
      """
      # TYPE sharegpu_container_gpu_memory_used_bytes gauge
      sharegpu_container_gpu_memory_used_bytes{container="main",device_uuid="GPU-kp-n1-0",namespace="kubectl-e2e",node="kp-n1",pod="notebook"} 7.516192768E9
      sharegpu_container_gpu_memory_used_bytes{container="main",device_uuid="GPU-kp-n1-0",namespace="kubectl-e2e",node="kp-n1",pod="trainer"} 2.147483648E9
      sharegpu_container_gpu_memory_used_bytes{container="main",device_uuid="GPU-x",namespace="other",node="kp-n1",pod="other"} 1.0E9
      # TYPE sharegpu_gpu_utilization_ratio gauge
      sharegpu_gpu_utilization_ratio{device_uuid="GPU-kp-n1-0",model="NVIDIA H100 80GB HBM3",node="kp-n1"} 0.42
      """;
}
