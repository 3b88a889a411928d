package io.sharegpu.kubectl.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodIPBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.kubectl.Fixtures;
import io.sharegpu.kubectl.ShareGpuCommand;
import io.sharegpu.kubectl.render.Style;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestNodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code explain} against the real scheduler extender (its jar, started as a process the way the
 * extender's own e2e tests start it) behind the API server's service proxy: checks that the plugin
 * reads the extender's real answer. Runs when the jar is built ({@code
 * scheduler-extender/target/sharegpu-scheduler-extender.jar}: a full {@code ./mvnw verify -De2e}
 * packages it before this module) and the machine has a non-loopback IPv4 address; skipped
 * otherwise.
 */
class ExplainRealExtenderE2E {

  private static final String NS = "kx-e2e";
  private static final String SYSTEM_NS = "kx-e2e-system";
  private static final String NODE = "kx-n1";
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static @Nullable JavaApp extender;
  private static @Nullable String address;

  @BeforeAll
  static void startAll() throws IOException {
    Path jar = TestApps.extenderJar();
    address = nonLoopbackAddress();
    assumeTrue(Files.exists(jar), "no extender jar at " + jar);
    assumeTrue(address != null, "no non-loopback IPv4 address for the API server to proxy to");
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    for (String ns : List.of(NS, SYSTEM_NS)) {
      cluster.applyNamespace(ns);
    }
    TestNodes.gpuNode(NODE).uuids(i -> "GPU-kx-" + i).gpus(1, "Tesla T4", 16384).create(client);
    client.pods().resource(Fixtures.pod(NS, "too-much", "", 500, 20000, Map.of())).create();

    int verbPort = Ports.free();
    int port = Ports.free(); // the management port: debug, explain
    extender =
        JavaApp.jar(jar)
            .name("kx-extender")
            .args("--server.port=" + verbPort, "--sharegpu.extender.management-port=" + port)
            .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
            .env("KUBECONFIG", cluster.kubeconfig().toString())
            .start()
            .waitForHttp(
                "http://127.0.0.1:" + port + "/actuator/health/readiness", Duration.ofSeconds(120));
    exposeThroughService(port);
  }

  @AfterAll
  static void stopAll() {
    if (extender != null) {
      extender.stop();
    }
    if (client != null) {
      List.of(NS, SYSTEM_NS).forEach(ns -> client.namespaces().withName(ns).delete());
      client.nodes().withName(NODE).delete();
      client.resources(GPUNode.class).withName(NODE).delete();
    }
  }

  @Test
  void explainShowsTheExtendersOwnReasonForEachNode() {
    String[] args = {
      "explain",
      "too-much",
      "-n",
      NS,
      "-o",
      "wide",
      "--extender-namespace",
      SYSTEM_NS,
      "--kubeconfig",
      cluster.kubeconfig().toString()
    };
    String out =
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> run(args), o -> o.lines().anyMatch(l -> l.startsWith(NODE + " ")));
    assertThat(out).startsWith("Pod kx-e2e/too-much: fits on ");
    String row = out.lines().filter(l -> l.startsWith(NODE + " ")).findFirst().orElseThrow();
    // the words of the extender's core: the only GPU has 16384 MiB, the pod asks for 20000
    assertThat(row).containsPattern(NODE + " +no +\\S.*MiB");
    assertThat(row).contains("no preemption");
  }

  private static String run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = ShareGpuCommand.run(new PrintWriter(out), new PrintWriter(err), Style.PLAIN, args);
    return status == 0 ? out.toString() : "status " + status + ": " + err;
  }

  /**
   * The chart's Service for the extender, here without a selector: Endpoints whose address is a pod
   * (the API server proxies only to a pod's IP) carrying this machine's address.
   */
  private static void exposeThroughService(int port) {
    Pod pod =
        client
            .pods()
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("extender-0")
                    .withNamespace(SYSTEM_NS)
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(NODE)
                    .addNewContainer()
                    .withName("extender")
                    .withImage("sharegpu/scheduler-extender")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    pod.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(address)
            .withPodIPs(new PodIPBuilder().withIp(address).build())
            .build());
    client.pods().resource(pod).updateStatus();
    client
        .services()
        .inNamespace(SYSTEM_NS)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("extender")
                .withLabels(
                    Map.of(
                        "app.kubernetes.io/component", "extender",
                        "app.kubernetes.io/part-of", "sharegpu"))
                .endMetadata()
                .withNewSpec()
                .addNewPort()
                .withName("management")
                .withPort(8081)
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
                .withName("extender")
                .endMetadata()
                .addNewSubset()
                .addNewAddress()
                .withIp(address)
                .withNewTargetRef()
                .withKind("Pod")
                .withNamespace(SYSTEM_NS)
                .withName("extender-0")
                .endTargetRef()
                .endAddress()
                .addNewPort()
                .withName("management")
                .withPort(port)
                .endPort()
                .endSubset()
                .build())
        .create();
  }

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
}
