package io.sharegpu.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodStatus;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestNodes;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two controller jars (separate JVMs) elect a leader through a Lease on the real control plane
 * (kube-apiserver, etcd, kube-controller-manager, kube-scheduler calling {@link InTestExtender}),
 * with the default Lease timing (15 s, renew deadline 10 s, retry 2 s). A burst of 40 SharePods
 * arrives; midway the leader is killed with SIGKILL (no release of the Lease); the follower, whose
 * caches are warm, takes the Lease once it expires and finishes the burst. At the end every
 * SharePod has exactly one pod (found by its controller owner reference) and a status that agrees
 * with it. Prints the measured takeover time.
 */
class ControllerLeaderElectionE2E {

  private static final String NAMESPACE = "shp-le-e2e-" + Long.toString(System.nanoTime(), 36);
  private static final String LEASE = "sharegpu-controller";
  private static final Duration LEASE_DURATION = Duration.ofSeconds(15);
  private static final Duration RETRY_PERIOD = Duration.ofSeconds(2);
  private static final List<String> NODES = List.of("shp-le-e2e-1", "shp-le-e2e-2");
  private static final int SHAREPODS = 40;
  private static final Pattern CREATIONS =
      Pattern.compile("(?m)^sharegpu_controller_pod_creations_total\\{[^}]*\\} (\\S+)$");
  private static final Pattern LEADER =
      Pattern.compile("(?m)^sharegpu_controller_leader\\{[^}]*\\} (\\S+)$");

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static InTestExtender extender;
  private static final List<JavaApp> controllers = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.createNamespace(NAMESPACE);
    for (String node : NODES) {
      createGpuNode(node, "NVIDIA H100 80GB HBM3", 81559, 8);
    }
    extender = new InTestExtender(client);
    cluster.startScheduler(extender.url());
  }

  @AfterAll
  static void stop() {
    controllers.forEach(JavaApp::stop);
    if (cluster != null) {
      cluster.stopScheduler();
      client.namespaces().withName(NAMESPACE).delete();
      for (String node : NODES) {
        client.nodes().withName(node).delete();
        client.resources(GPUNode.class).withName(node).delete();
      }
    }
    if (extender != null) {
      extender.close();
    }
  }

  @Test
  void theFollowerTakesOverAKilledLeaderMidBurstAndEverySharePodEndsWithOnePod() throws Exception {
    Replica a = Replica.start("replica-a");
    Replica b = Replica.start("replica-b");
    a.app.waitForHttp(a.url("/actuator/health/readiness"), Duration.ofSeconds(120));
    b.app.waitForHttp(b.url("/actuator/health/readiness"), Duration.ofSeconds(120));
    await().atMost(Duration.ofSeconds(60)).until(() -> holder().isPresent());
    Replica leader = holder().get().equals(a.identity) ? a : b;
    Replica follower = leader == a ? b : a;
    // both ready (the follower's caches are warm); only the leader leads
    await().atMost(Duration.ofSeconds(30)).until(() -> metric(leader, LEADER) == 1.0);
    assertThat(metric(follower, LEADER)).isZero();
    assertThat(status(follower, "/actuator/health/readiness")).isEqualTo(200);

    for (int i = 0; i < SHAREPODS / 2; i++) {
      create(i);
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> ownedPods().size() >= 3);
    assertThat(metric(follower, CREATIONS)).as("a follower creates no pod").isZero();

    long killedAt = System.nanoTime();
    leader.app.kill(); // SIGKILL mid-burst: the Lease is not released
    int podsAtKill = ownedPods().size();
    for (int i = SHAREPODS / 2; i < SHAREPODS; i++) {
      create(i);
    }

    Duration limit = LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2));
    await()
        .atMost(limit.plusSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> holder().filter(follower.identity::equals).isPresent());
    Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> metric(follower, CREATIONS) >= 1.0 || ownedPods().size() == SHAREPODS);
    Duration firstWrite = Duration.ofNanos(System.nanoTime() - killedAt);
    System.out.printf(
        "leader election e2e: %d of %d pods existed when %s was killed; %s took the Lease after"
            + " %d ms and created its first pod by %d ms (lease %d s, retry %d s)%n",
        podsAtKill,
        SHAREPODS,
        leader.identity,
        follower.identity,
        takeover.toMillis(),
        firstWrite.toMillis(),
        LEASE_DURATION.toSeconds(),
        RETRY_PERIOD.toSeconds());
    assertThat(takeover).isLessThanOrEqualTo(limit);

    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(ControllerLeaderElectionE2E::everySharePodHasOnePodAndAMatchingStatus);
    // settled: no second pod appears later
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(ControllerLeaderElectionE2E::everySharePodHasOnePodAndAMatchingStatus);
    assertThat(metric(follower, LEADER)).isEqualTo(1.0);
    assertThat(Files.readString(follower.app.logFile()))
        .contains("leader: this replica (" + follower.identity + ") holds the Lease");
  }

  private static void everySharePodHasOnePodAndAMatchingStatus() {
    List<SharePod> sharePods =
        client.resources(SharePod.class).inNamespace(NAMESPACE).list().getItems();
    assertThat(sharePods).hasSize(SHAREPODS);
    Map<String, List<Pod>> byOwner = new HashMap<>();
    List<Pod> pods = client.pods().inNamespace(NAMESPACE).list().getItems();
    for (Pod pod : pods) {
      String owner = controllerUid(pod).orElse("(none)");
      byOwner.computeIfAbsent(owner, k -> new ArrayList<>()).add(pod);
    }
    assertThat(pods).as("pods in the namespace").hasSize(SHAREPODS);
    for (SharePod sp : sharePods) {
      String name = sp.getMetadata().getName();
      List<Pod> owned = byOwner.getOrDefault(sp.getMetadata().getUid(), List.of());
      assertThat(owned).as("pods of %s", name).hasSize(1);
      Pod pod = owned.get(0);
      assertThat(pod.getMetadata().getName()).isEqualTo(name);
      assertThat(pod.getSpec().getNodeName()).as("node of pod %s", name).isIn(NODES);
      SharePodStatus status = sp.getStatus();
      assertThat(status).as("status of %s", name).isNotNull();
      assertThat(status.getPhase())
          .as("phase of %s: %s", name, status.getMessage())
          .isEqualTo("Scheduled");
      assertThat(status.getPodName()).isEqualTo(name);
      assertThat(status.getNodeName()).isEqualTo(pod.getSpec().getNodeName());
      assertThat(status.getGpuList())
          .isEqualTo(pod.getMetadata().getAnnotations().get(ShareGpuAnnotations.ASSIGNED_GPUS));
    }
  }

  private static Map<String, Pod> ownedPods() {
    Map<String, Pod> owned = new HashMap<>();
    for (Pod pod : client.pods().inNamespace(NAMESPACE).list().getItems()) {
      controllerUid(pod).ifPresent(uid -> owned.put(pod.getMetadata().getName(), pod));
    }
    return owned;
  }

  private static Optional<String> controllerUid(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    return owners == null
        ? Optional.empty()
        : owners.stream()
            .filter(o -> Boolean.TRUE.equals(o.getController()) && "SharePod".equals(o.getKind()))
            .map(OwnerReference::getUid)
            .findFirst();
  }

  private static Optional<String> holder() {
    Lease lease = client.resources(Lease.class).inNamespace(NAMESPACE).withName(LEASE).get();
    return lease == null || lease.getSpec() == null
        ? Optional.empty()
        : Optional.ofNullable(lease.getSpec().getHolderIdentity()).filter(s -> !s.isEmpty());
  }

  private static void create(int i) {
    Path file = TestCluster.repoRoot().resolve("examples/sharepods/notebook.yaml");
    try (InputStream in = Files.newInputStream(file)) {
      SharePod sp = client.resources(SharePod.class).load(in).item();
      sp.getMetadata().setNamespace(NAMESPACE);
      sp.getMetadata().setName(String.format("burst-%02d", i));
      sp.getSpec().getGpu().setRequest(new Quantity("0.1"));
      sp.getSpec().getGpu().setMemory(new Quantity("4Gi"));
      sp.getSpec()
          .getTemplate()
          .getSpec()
          .getContainers()
          .get(0)
          .setResources(
              new ResourceRequirementsBuilder()
                  .addToRequests("cpu", new Quantity("10m"))
                  .addToRequests("memory", new Quantity("16Mi"))
                  .build());
      client.resources(SharePod.class).inNamespace(NAMESPACE).resource(sp).create();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  private static double metric(Replica replica, Pattern series) {
    try {
      HttpResponse<String> response = get(replica, "/actuator/prometheus");
      Matcher m = series.matcher(response.body());
      return m.find() ? Double.parseDouble(m.group(1)) : 0.0;
    } catch (IOException e) {
      return Double.NaN;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Double.NaN;
    }
  }

  private static int status(Replica replica, String path) throws Exception {
    return get(replica, path).statusCode();
  }

  private static HttpResponse<String> get(Replica replica, String path)
      throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(replica.url(path)))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /** One controller JVM with its own identity in the Lease. */
  private record Replica(String identity, JavaApp app, int port) {

    static Replica start(String identity) {
      int port = Ports.free();
      Path jar = Path.of("target", "sharegpu-sharepod-controller.jar").toAbsolutePath();
      JavaApp app =
          JavaApp.jar(jar)
              .name("sharepod-controller-" + identity)
              .args(
                  "--server.port=" + port,
                  "--sharegpu.controller.namespaces=" + NAMESPACE,
                  "--sharegpu.controller.leader-election.namespace=" + NAMESPACE,
                  "--sharegpu.controller.leader-election.identity=" + identity)
              .jvmOptions("-XX:TieredStopAtLevel=1", "-Xmx256m")
              .env("KUBECONFIG", cluster.kubeconfig().toString())
              .start();
      controllers.add(app);
      return new Replica(identity, app, port);
    }

    String url(String path) {
      return "http://127.0.0.1:" + port + path;
    }
  }

  private static void createGpuNode(String name, String model, long memoryMib, int gpus) {
    TestNodes.gpuNode(name)
        .uuids(i -> TestNodes.nvidiaUuid(name, i))
        .gpus(gpus, model, memoryMib)
        .create(client);
  }
}
