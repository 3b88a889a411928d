package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.testcluster.GpuInvariant;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestEvents;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two extender replicas with one bind Lease behind a round-robin proxy (standing in for a Service)
 * that kube-scheduler calls: a burst of share pods that overfills two 4-GPU nodes, the bind leader
 * killed (SIGKILL) midway. Every pod ends bound or reported unschedulable with no GPU room left for
 * it, no GPU is over-committed (checked from the pods' annotations) and the survivor holds the
 * Lease.
 */
class ExtenderHaE2E {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ExtenderHaE2E.class);
  private static final String NS = "extender-ha-e2e";
  private static final String LEASE = "sharegpu-extender-bind";
  private static final List<String> NODES = List.of("ha-a", "ha-b");
  private static final Map<String, String> L4 = Map.of(ShareGpuAnnotations.GPU_MODELS, "L4");
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static final Map<String, GpuStatus> GPUS = new HashMap<>();
  private static final Map<String, String> GPU_NODE = new HashMap<>();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static JavaApp a;
  private static JavaApp b;
  private static int portA;
  private static int portB;
  private static int managementA;
  private static int managementB;
  private static HttpServer proxy;
  private static final AtomicInteger proxied = new AtomicInteger();

  @BeforeAll
  static void startAll() throws IOException {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.applyNamespace(NS);
    for (String n : NODES) {
      gpuNode(n, "NVIDIA L4", 4, 23034);
    }
    portA = Ports.free();
    portB = Ports.free();
    managementA = Ports.free();
    managementB = Ports.free();
    a = startReplica("ha-a", portA);
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> url(portA).equals(holder()) && leaderGauge(portA) == 1.0);
    b = startReplica("ha-b", portB);
    proxy = startProxy();
    cluster.startScheduler("http://127.0.0.1:" + proxy.getAddress().getPort());
  }

  @AfterAll
  static void stopAll() {
    if (cluster != null) {
      cluster.stopScheduler();
    }
    if (proxy != null) {
      proxy.stop(0);
    }
    for (JavaApp app : new JavaApp[] {a, b}) {
      if (app != null) {
        app.stop();
      }
    }
    if (client != null) {
      client.namespaces().withName(NS).delete();
      for (String n : NODES) {
        client.nodes().withName(n).delete();
        client.resources(GPUNode.class).withName(n).delete();
      }
    }
  }

  @Test
  void killingTheBindLeaderMidBurstNeverDoubleBooksAGpu() throws Exception {
    assertThat(leaderGauge(portB)).as("B follows").isEqualTo(0.0);
    List<String> names = new ArrayList<>();
    double forwardedBeforeKill = 0;
    long killedAt = 0;
    for (int i = 0; i < 30; i++) {
      String name = "ha-" + i;
      names.add(name);
      // 24 x 250m + 6 x 500m = 9000m for 8000m of GPUs: some must stay unschedulable
      createPod(name, L4, container("main", i % 5 == 4 ? 500 : 250, 4096));
      if (i == 14) {
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> boundCount() >= 3 && forwarded(portB) > 0);
        forwardedBeforeKill = forwarded(portB);
        a.kill();
        killedAt = System.nanoTime();
      }
      Thread.sleep(100);
    }
    // the survivor takes the Lease once it expires and binds what is left
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> url(portB).equals(holder()) && leaderGauge(portB) == 1.0);
    long takeoverMs = (System.nanoTime() - killedAt) / 1_000_000;
    Awaitility.await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertSettled(names));
    assertInvariant();
    long bound = names.stream().filter(n -> pod(n).getSpec().getNodeName() != null).count();
    assertThat(bound).as("bound pods").isGreaterThanOrEqualTo(24);
    assertThat(proxied.get()).isPositive();
    LOG.info(
        "HA burst: {} of {} pods bound, {} binds forwarded by the follower before the leader was"
            + " killed, survivor binding {} ms after the kill",
        bound,
        names.size(),
        (long) forwardedBeforeKill,
        takeoverMs);
  }

  /**
   * Every pod is bound with an assignment, or pending with a FailedScheduling and no GPU for it.
   */
  private static void assertSettled(List<String> names) {
    Map<String, Integer> used = new HashMap<>();
    List<Pod> pending = new ArrayList<>();
    for (String n : names) {
      Pod p = pod(n);
      if (p.getSpec().getNodeName() == null) {
        pending.add(p);
        continue;
      }
      PodAssignment pa = assignment(n).orElseThrow(() -> new AssertionError(n + " unassigned"));
      for (ContainerAssignment ca : pa.containers()) {
        for (String uuid : ca.gpuUuids()) {
          used.merge(uuid, TestPods.gpuMilli(p), Integer::sum);
        }
      }
    }
    Set<String> failed = TestEvents.failedSchedulingNames(client, NS);
    int maxFree =
        GPUS.keySet().stream().mapToInt(u -> 1000 - used.getOrDefault(u, 0)).max().orElse(0);
    for (Pod p : pending) {
      String n = p.getMetadata().getName();
      assertThat(failed).as(n + " reported unschedulable").contains(n);
      assertThat(TestPods.gpuMilli(p))
          .as(n + " pending although a GPU has room")
          .isGreaterThan(maxFree);
    }
  }

  private static long boundCount() {
    return client.pods().inNamespace(NS).list().getItems().stream()
        .filter(p -> p.getSpec().getNodeName() != null)
        .count();
  }

  private static String url(int port) {
    return "http://127.0.0.1:" + port;
  }

  /** The management port (debug, actuator) of the replica whose verb port is {@code port}. */
  private static String managementUrl(int port) {
    return "http://127.0.0.1:" + (port == portA ? managementA : managementB);
  }

  private static String holder() {
    Lease l = client.leases().inNamespace(NS).withName(LEASE).get();
    return l == null || l.getSpec() == null ? "" : String.valueOf(l.getSpec().getHolderIdentity());
  }

  private static double leaderGauge(int port) {
    return metric(port, "sharegpu_extender_leader ");
  }

  private static double forwarded(int port) {
    return metric(port, "sharegpu_decisions_total{outcome=\"forwarded\",verb=\"bind\"}");
  }

  private static double metric(int port, String prefix) {
    try {
      String body =
          HTTP.send(
                  HttpRequest.newBuilder(URI.create(managementUrl(port) + "/actuator/prometheus"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      return body.lines()
          .filter(l -> l.startsWith(prefix))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
          .findFirst()
          .orElse(0.0);
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static JavaApp startReplica(String name, int port) {
    Path jar = TestApps.extenderJar();
    assertThat(Files.exists(jar)).as("built jar " + jar).isTrue();
    return JavaApp.jar(jar)
        .name("extender-" + name)
        .args(
            "--server.port=" + port,
            "--sharegpu.extender.management-port=" + (port == portA ? managementA : managementB),
            "--sharegpu.extender.policy=binpack",
            "--sharegpu.extender.bind-lease.name=" + LEASE,
            "--sharegpu.extender.bind-lease.namespace=" + NS,
            "--sharegpu.extender.bind-lease.duration=6s",
            "--sharegpu.extender.bind-lease.renew-deadline=4s",
            "--sharegpu.extender.bind-lease.retry-period=1s",
            "--sharegpu.extender.advertise-url=" + url(port))
        .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
        .env("KUBECONFIG", cluster.kubeconfig().toString())
        .start()
        .waitForHttp(managementUrl(port) + "/actuator/health/readiness", Duration.ofSeconds(120));
  }

  /**
   * Round-robin over both replicas, like a Service; a replica that refuses the connection is
   * skipped (a Service drops an endpoint that fails readiness).
   */
  private static HttpServer startProxy() throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    AtomicInteger next = new AtomicInteger();
    s.setExecutor(Executors.newFixedThreadPool(8));
    s.createContext(
        "/",
        ex -> {
          byte[] body = ex.getRequestBody().readAllBytes();
          int first = next.getAndIncrement();
          IOException last = null;
          for (int i = 0; i < 2; i++) {
            int port = (first + i) % 2 == 0 ? portA : portB;
            try {
              HttpResponse<byte[]> r =
                  HTTP.send(
                      HttpRequest.newBuilder(URI.create(url(port) + ex.getRequestURI()))
                          .timeout(Duration.ofSeconds(30))
                          .header("Content-Type", "application/json")
                          .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                          .build(),
                      HttpResponse.BodyHandlers.ofByteArray());
              proxied.incrementAndGet();
              reply(ex, r.statusCode(), r.body());
              return;
            } catch (IOException e) {
              last = e;
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              break;
            }
          }
          reply(ex, 502, String.valueOf(last).getBytes(StandardCharsets.UTF_8));
        });
    s.start();
    return s;
  }

  private static void reply(HttpExchange ex, int status, byte[] body) throws IOException {
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  // ---------------------------------------------------------------------------------- helpers

  private static Container container(String name, int milli, long memoryMib) {
    return TestPods.gpuContainer(name, TestPods.PAUSE_IMAGE, milli, memoryMib);
  }

  private static void createPod(String name, Map<String, String> annotations, Container... cs) {
    TestPods.pod(name)
        .namespace(NS)
        .annotations(annotations)
        .containers(cs)
        .gracePeriod(0)
        .create(client);
  }

  private static Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static Optional<PodAssignment> assignment(String name) {
    return TestPods.assignment(pod(name));
  }

  /** No GPU holds more compute or memory than it has; whole GPUs are exclusive. */
  private static void assertInvariant() {
    GpuInvariant.assertNoGpuOverCommitted(
        client.pods().inNamespace(NS).list().getItems(), GPUS, GPU_NODE);
  }

  private static void gpuNode(String name, String model, int count, long memMib) {
    for (GpuStatus s : TestNodes.gpuNode(name).gpus(count, model, memMib).create(client)) {
      GPUS.put(s.getUuid(), s);
      GPU_NODE.put(s.getUuid(), name);
    }
  }
}
