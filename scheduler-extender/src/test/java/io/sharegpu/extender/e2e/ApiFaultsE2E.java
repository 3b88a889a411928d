package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.extender.e2e.FaultProxy.BindingFault;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestEvents;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.io.IOException;
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
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * API-server faults on the bind path against the real control plane: the extender talks to the API
 * server through {@link FaultProxy} (a TLS-terminating HTTP proxy, see there why), while
 * kube-scheduler talks to it directly. Each scenario fills its own simulated GPU nodes with a burst
 * of share pods under one kind of fault:
 *
 * <ul>
 *   <li>(a) Binding creates answered 500 or 409 without reaching the API server, and Bindings that
 *       reach it but whose answer is lost (connection reset after forwarding);
 *   <li>(b) the informers' watch connections reset every few seconds, and all watches stalled for a
 *       while;
 *   <li>(c) Binding creates whose answer is held past the extender's client timeout, or held before
 *       being forwarded (a Binding landing after the client gave up).
 * </ul>
 *
 * <p>Checked while the burst runs (sampled every 500 ms) and at the end: no pod is bound without an
 * assignment, an assignment never changes once seen, no GPU holds more compute or memory than it
 * has; at the end every pod is bound or reported unschedulable with no GPU room left for it, and
 * once past the reservation TTL the extender's ledger ({@code /debug/allocations}) equals what the
 * pods' annotations say, with no reservation left.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ApiFaultsE2E {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ApiFaultsE2E.class);
  private static final String NS = "api-faults-e2e";
  private static final String SCENARIO = "sharegpu-e2e/fault-scenario";
  private static final Pattern REASON = Pattern.compile("reason=\"([^\"]+)\"");
  private static final Duration TTL = Duration.ofSeconds(5);
  private static final int GPUS_PER_NODE = 4;
  private static final long GPU_MIB = 23034;
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static final Map<String, GpuStatus> GPUS = new ConcurrentHashMap<>();
  private static final Map<String, String> GPU_NODE = new ConcurrentHashMap<>();
  private static final List<String> NODES = new CopyOnWriteArrayList<>();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static FaultProxy proxy;
  private static JavaApp extender;
  private static int managementPort;

  @BeforeAll
  static void startAll() throws IOException {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.applyNamespace(NS);
    int apiPort = URI.create(cluster.apiServerUrl()).getPort();
    proxy = new FaultProxy(cluster.dir().resolve("pki"), apiPort);
    Path kubeconfig =
        proxy.kubeconfig(
            cluster.kubeconfig(), Files.createTempFile("sharegpu-fault-proxy-", ".kubeconfig"));
    int port = Ports.free();
    managementPort = Ports.free();
    Path jar = TestApps.extenderJar();
    assertThat(Files.exists(jar)).as("built jar " + jar).isTrue();
    extender =
        JavaApp.jar(jar)
            .name("extender-api-faults")
            .args(
                "--server.port=" + port,
                "--sharegpu.extender.management-port=" + managementPort,
                "--sharegpu.extender.policy=binpack",
                "--sharegpu.extender.reservation-ttl=" + TTL.toSeconds() + "s")
            // fabric8's request timeout, so that scenario (c) can hold answers past it
            .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1", "-Dkubernetes.request.timeout=2000")
            .env("KUBECONFIG", kubeconfig.toString())
            .start()
            .waitForHttp(
                "http://127.0.0.1:" + managementPort + "/actuator/health/readiness",
                Duration.ofSeconds(120));
    assertThat(proxy.requests()).as("the extender talks through the proxy").isPositive();
    cluster.startScheduler("http://127.0.0.1:" + port);
  }

  @AfterAll
  static void stopAll() {
    if (cluster != null) {
      cluster.stopScheduler();
    }
    if (extender != null) {
      extender.stop();
    }
    if (proxy != null) {
      proxy.close();
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
  @Order(1)
  void bindingsAnsweredWithErrorsOrLostAnswersBindEveryPodOnce() throws Exception {
    Random random = new Random(20);
    proxy.bindingFaults(
        n -> {
          int r = random.nextInt(100);
          return r < 12
              ? BindingFault.ANSWER_500
              : r < 22
                  ? BindingFault.ANSWER_409
                  : r < 34 ? BindingFault.RESET_AFTER_FORWARD : BindingFault.NONE;
        });
    Map<String, Integer> failed;
    try {
      failed = scenario("a", 50);
    } finally {
      proxy.bindingFaults(n -> BindingFault.NONE);
    }
    // a Binding that landed although its answer was lost (the client retries and meets 409) is
    // success, not a conflict: only the injected 409s may fail as conflicts
    assertThat(failed.getOrDefault("conflict", 0))
        .as("binds failed as conflicts")
        .isLessThanOrEqualTo(proxy.injected(BindingFault.ANSWER_409));
    assertThat(proxy.injected(BindingFault.RESET_AFTER_FORWARD)).isPositive();
    assertThat(proxy.injected(BindingFault.ANSWER_500)).isPositive();
    assertThat(proxy.injected(BindingFault.ANSWER_409)).isPositive();
  }

  @Test
  @Order(2)
  void watchResetsAndAStalledWatchLoseNoGpu() throws Exception {
    ScheduledExecutorService chaos = Executors.newSingleThreadScheduledExecutor();
    int resetsBefore = proxy.watchResets();
    int[] tick = {0};
    chaos.scheduleWithFixedDelay(
        () -> {
          // every 2 s the watches are reset, except the third tick: stalled for 6 s
          if (++tick[0] == 3) {
            proxy.stallWatches(6000);
          } else {
            proxy.resetWatches();
          }
        },
        1,
        2,
        TimeUnit.SECONDS);
    try {
      scenario("b", 300);
    } finally {
      chaos.shutdownNow();
    }
    assertThat(proxy.watchResets() - resetsBefore).as("watch connections reset").isPositive();
    assertThat(tick[0]).as("chaos ticks, the third a stall").isGreaterThanOrEqualTo(4);
  }

  @Test
  @Order(3)
  void bindingsHeldPastTheClientTimeoutBindEveryPodOnce() throws Exception {
    Random random = new Random(30);
    proxy.holdMillis(3000);
    proxy.bindingFaults(
        n -> {
          int r = random.nextInt(100);
          return r < 15
              ? BindingFault.HOLD_AFTER_FORWARD
              : r < 25 ? BindingFault.HOLD_BEFORE_FORWARD : BindingFault.NONE;
        });
    try {
      scenario("c", 50);
    } finally {
      proxy.bindingFaults(n -> BindingFault.NONE);
    }
    assertThat(proxy.injected(BindingFault.HOLD_AFTER_FORWARD)).isPositive();
    assertThat(proxy.injected(BindingFault.HOLD_BEFORE_FORWARD)).isPositive();
  }

  /**
   * 3 nodes of 4 GPUs (12,000m) for 40 pods: 30 of 250m and 10 of 500m (12,500m), so some must stay
   * unschedulable.
   */
  private static Map<String, Integer> scenario(String id, long spacingMs) throws Exception {
    List<String> nodes = List.of("fault-" + id + "-0", "fault-" + id + "-1", "fault-" + id + "-2");
    for (String n : nodes) {
      gpuNode(n, id);
    }
    Map<String, String> before = new TreeMap<>();
    for (BindingFault f : BindingFault.values()) {
      before.put(f.name(), Integer.toString(proxy.injected(f)));
    }
    int bindingsBefore = proxy.bindings();
    Map<String, Integer> rejectionsBefore = bindRejections();
    List<String> violations = new CopyOnWriteArrayList<>();
    Map<String, String> firstSeen = new ConcurrentHashMap<>();
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    int[] samples = {0};
    sampler.scheduleWithFixedDelay(
        () -> {
          try {
            violations.addAll(violations(id, firstSeen));
            samples[0]++;
          } catch (RuntimeException e) {
            LOG.debug("sample failed: {}", e.toString());
          }
        },
        0,
        500,
        TimeUnit.MILLISECONDS);
    List<String> names = new ArrayList<>();
    long started = System.nanoTime();
    try {
      for (int i = 0; i < 40; i++) {
        String name = "f" + id + "-" + i;
        names.add(name);
        createPod(name, id, i % 4 == 3 ? 500 : 250);
        Thread.sleep(spacingMs);
      }
      Awaitility.await()
          .atMost(Duration.ofSeconds(240))
          .pollInterval(Duration.ofSeconds(2))
          .untilAsserted(() -> assertSettled(id, names));
    } finally {
      sampler.shutdownNow();
      sampler.awaitTermination(5, TimeUnit.SECONDS);
    }
    long settledMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertThat(violations).as("violations seen while the burst ran").isEmpty();
    assertThat(samples[0]).as("samples taken").isPositive();
    assertThat(violations(id, firstSeen)).isEmpty();
    // no leaked reservation: past the TTL the ledger says what the pods say
    Awaitility.await()
        .atMost(TTL.multipliedBy(6))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> assertThat(ledger(id)).as("ledger of scenario " + id).isEqualTo(fromPods(id)));
    long bound = pods(id).stream().filter(ApiFaultsE2E::isBound).count();
    Map<String, Integer> rejections = new TreeMap<>(bindRejections());
    rejectionsBefore.forEach((k, v) -> rejections.merge(k, -v, Integer::sum));
    rejections.values().removeIf(v -> v == 0);
    Map<String, Integer> injected = new TreeMap<>();
    for (BindingFault f : BindingFault.values()) {
      int n = proxy.injected(f) - Integer.parseInt(before.get(f.name()));
      if (n > 0) {
        injected.put(f.name(), n);
      }
    }
    LOG.info(
        "scenario {}: {} of {} pods bound ({} GPU-milli of 12000), {} Binding creates through the"
            + " proxy, faults {}, failed binds by reason {}, {} watch resets so far, settled in {} ms,"
            + " {} invariant samples",
        id,
        bound,
        names.size(),
        fromPods(id).values().stream().mapToInt(Integer::intValue).sum(),
        proxy.bindings() - bindingsBefore,
        injected,
        rejections,
        proxy.watchResets(),
        settledMs,
        samples[0]);
    assertThat(bound).as("bound pods").isGreaterThanOrEqualTo(36);
    assertThat(rejections).as("failed binds by reason").doesNotContainKey("other");
    // what is left pending can go: the next scenario's nodes are labelled apart anyway
    for (Pod p : pods(id)) {
      if (!isBound(p)) {
        client.pods().inNamespace(NS).withName(p.getMetadata().getName()).delete();
      }
    }
    return rejections;
  }

  /** The extender's failed binds so far, by reason ({@code sharegpu_rejections_total}). */
  private static Map<String, Integer> bindRejections() throws Exception {
    String body =
        HTTP.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + managementPort + "/actuator/prometheus"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Map<String, Integer> out = new TreeMap<>();
    for (String l : body.lines().toList()) {
      if (l.startsWith("sharegpu_rejections_total{") && l.contains("verb=\"bind\"")) {
        Matcher m = REASON.matcher(l);
        if (m.find()) {
          out.put(m.group(1), (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)));
        }
      }
    }
    return out;
  }

  /** Every pod is bound with an assignment, or pending, reported unschedulable, with no room. */
  private static void assertSettled(String id, List<String> names) {
    Map<String, Integer> used = new HashMap<>();
    List<Pod> pending = new ArrayList<>();
    Map<String, Pod> byName =
        pods(id).stream().collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p));
    assertThat(byName.keySet()).containsAll(names);
    for (String n : names) {
      Pod p = byName.get(n);
      if (!isBound(p)) {
        pending.add(p);
        continue;
      }
      PodAssignment pa = assignment(p);
      assertThat(pa).as(n + " bound without assignment").isNotNull();
      for (ContainerAssignment ca : pa.containers()) {
        for (String uuid : ca.gpuUuids()) {
          used.merge(uuid, TestPods.gpuMilli(p), Integer::sum);
        }
      }
    }
    Set<String> failed = TestEvents.failedSchedulingNames(client, NS);
    int maxFree =
        GPUS.keySet().stream()
            .filter(u -> GPU_NODE.get(u).startsWith("fault-" + id + "-"))
            .mapToInt(u -> 1000 - used.getOrDefault(u, 0))
            .max()
            .orElse(0);
    for (Pod p : pending) {
      String n = p.getMetadata().getName();
      if (TestPods.gpuMilli(p) <= maxFree) {
        // room exists (GPUs held by a reservation that has since expired): kube-scheduler retries
        // an unschedulable pod on a cluster event or after minutes; an update is such an event
        client
            .pods()
            .inNamespace(NS)
            .withName(n)
            .edit(
                x -> {
                  x.getMetadata()
                      .getLabels()
                      .put("sharegpu-e2e/nudge", Long.toString(System.nanoTime()));
                  return x;
                });
      }
      assertThat(failed).as(n + " reported unschedulable").contains(n);
      assertThat(TestPods.gpuMilli(p))
          .as(n + " pending although a GPU has room")
          .isGreaterThan(maxFree);
    }
  }

  /**
   * What is wrong right now: a bound pod without an assignment or with GPUs of another node, an
   * assignment that changed, a GPU holding more than it has.
   */
  private static List<String> violations(String id, Map<String, String> firstSeen) {
    List<String> out = new ArrayList<>();
    Map<String, Integer> compute = new HashMap<>();
    Map<String, Long> memory = new HashMap<>();
    for (Pod p : pods(id)) {
      if (!isBound(p)) {
        continue;
      }
      String name = p.getMetadata().getName();
      String assigned =
          p.getMetadata().getAnnotations().get(ShareGpuAnnotations.ASSIGNED_GPUS)
              + "@"
              + p.getSpec().getNodeName();
      String was = firstSeen.putIfAbsent(name, assigned);
      if (was != null && !was.equals(assigned)) {
        out.add(name + " assignment changed from " + was + " to " + assigned);
      }
      var request = ((ParsedRequest.Valid) PodGpuRequestParser.parse(p)).request();
      PodAssignment a = assignment(p);
      if (a == null) {
        out.add(name + " bound without assignment");
        continue;
      }
      for (ContainerGpuRequest c : request.containers()) {
        for (ContainerAssignment ca : a.containers()) {
          if (!ca.container().equals(c.container())) {
            continue;
          }
          for (String uuid : ca.gpuUuids()) {
            if (!p.getSpec().getNodeName().equals(GPU_NODE.get(uuid))) {
              out.add(name + " names GPU " + uuid + " not on " + p.getSpec().getNodeName());
              continue;
            }
            compute.merge(uuid, c.computeMilli(), Integer::sum);
            memory.merge(uuid, ca.memoryMibPerGpu(), Long::sum);
          }
        }
      }
    }
    compute.forEach(
        (uuid, m) -> {
          if (m > GPUS.get(uuid).getComputeMilli()) {
            out.add("GPU " + uuid + " over-committed: " + m + "m");
          }
        });
    memory.forEach(
        (uuid, m) -> {
          if (m > GPUS.get(uuid).getMemoryMiB()) {
            out.add("GPU " + uuid + " over-committed: " + m + " MiB");
          }
        });
    return out;
  }

  /** pod|uuid → compute milli from the bound pods' annotations. */
  private static Map<String, Integer> fromPods(String id) {
    Map<String, Integer> out = new TreeMap<>();
    for (Pod p : pods(id)) {
      PodAssignment a = isBound(p) ? assignment(p) : null;
      if (a == null) {
        continue;
      }
      for (ContainerAssignment ca : a.containers()) {
        for (String uuid : ca.gpuUuids()) {
          out.merge(
              NS + "/" + p.getMetadata().getName() + "|" + uuid,
              TestPods.gpuMilli(p),
              Integer::sum);
        }
      }
    }
    return out;
  }

  /** pod|uuid → compute milli of the extender's ledger rows for this scenario's pods. */
  @SuppressWarnings("unchecked")
  private static Map<String, Integer> ledger(String id) throws Exception {
    String body =
        HTTP.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + managementPort + "/debug/allocations"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    List<Map<String, Object>> rows =
        client.getKubernetesSerialization().unmarshal(body, List.class);
    Map<String, Integer> out = new TreeMap<>();
    for (Map<String, Object> r : rows) {
      String pod = String.valueOf(r.get("pod"));
      if (!pod.startsWith(NS + "/f" + id + "-")) {
        continue;
      }
      String key = pod + "|" + r.get("uuid");
      // a row still RESERVED is a leak once the TTL has passed: it shows as a mismatch
      out.merge(
          "BOUND".equals(r.get("state")) ? key : key + " (" + r.get("state") + ")",
          ((Number) r.get("computeMilli")).intValue(),
          Integer::sum);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------- helpers

  private static List<Pod> pods(String id) {
    return client.pods().inNamespace(NS).withLabel(SCENARIO, id).list().getItems();
  }

  private static boolean isBound(Pod p) {
    return p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().isEmpty();
  }

  private static @Nullable PodAssignment assignment(Pod p) {
    return TestPods.assignment(p).orElse(null);
  }

  private static void createPod(String name, String id, int milli) {
    TestPods.pod(name)
        .namespace(NS)
        .label(SCENARIO, id)
        .model("L4")
        .nodeSelector(SCENARIO, id)
        .share(milli, 4096)
        .gracePeriod(0)
        .create(client);
  }

  private static void gpuNode(String name, String id) {
    NODES.add(name);
    List<GpuStatus> gpus =
        TestNodes.gpuNode(name)
            .label(SCENARIO, id)
            .gpus(GPUS_PER_NODE, "NVIDIA L4", GPU_MIB)
            .create(client);
    for (GpuStatus s : gpus) {
      GPUS.put(s.getUuid(), s);
      GPU_NODE.put(s.getUuid(), name);
    }
  }
}
