package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The extender's verbs over mutual TLS behind the real kube-scheduler: certificates made here with
 * {@code openssl} (a CA, the extender's serving certificate for 127.0.0.1, kube-scheduler's client
 * certificate, and a second CA with a client certificate of its own); the extender serves the verbs
 * on HTTPS requiring a client certificate from the CA and debug and actuator on a plain management
 * port; kube-scheduler's configuration names them in the extender's {@code tlsConfig}.
 *
 * <p>Two replicas elect a bind leader; kube-scheduler calls the other one, which forwards the bind
 * to the leader's verb port presenting its own certificate. kube-scheduler binds a pod that way
 * (the follower counts a forwarded bind, the leader a bound one); a call to {@code /filter} or
 * {@code /bind} without a client certificate, or with one from the other CA, is refused; a verb on
 * the management port and a debug path on the verb port both answer 404.
 */
class ExtenderMtlsE2E {

  private static final String NS = "mtls-e2e";
  private static final String NODE = "e2e-mtls";
  private static final String MODEL = "NVIDIA H100 80GB HBM3 mtls-e2e";
  private static final String PASSWORD = "changeit";

  @TempDir static Path pki;

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static final String LEASE = "mtls-e2e-bind";

  /** The bind leader: binds forwarded to it arrive over mutual TLS. */
  private static JavaApp leader;

  /** The replica kube-scheduler calls; it is not the bind leader, so it forwards every bind. */
  private static JavaApp extender;

  private static int leaderPort;
  private static int port;
  private static int managementPort;
  private static int followerManagementPort;

  @BeforeAll
  static void startAll() throws Exception {
    makeCertificates();
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.applyNamespace(NS);
    TestNodes.gpuNode(NODE).gpus(1, MODEL, 81559).create(client);
    leaderPort = Ports.free();
    managementPort = Ports.free();
    port = Ports.free();
    followerManagementPort = Ports.free();
    leader = startReplica("extender-mtls-leader", leaderPort, managementPort);
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> ("https://127.0.0.1:" + leaderPort).equals(leaseHolder()));
    extender = startReplica("extender-mtls-follower", port, followerManagementPort);
    cluster.startScheduler("https://127.0.0.1:" + port, schedulerConfig());
  }

  /**
   * An extender replica in the environment the chart's Deployment sets when extender.tls.enabled,
   * electing the bind leader on {@link #LEASE}.
   */
  private static JavaApp startReplica(String name, int verbPort, int management) {
    Path jar = TestApps.extenderJar();
    assertThat(Files.exists(jar)).as("built jar " + jar).isTrue();
    return JavaApp.jar(jar)
        .name(name)
        .args(
            "--sharegpu.extender.policy=binpack",
            "--sharegpu.extender.bind-lease.name=" + LEASE,
            "--sharegpu.extender.bind-lease.namespace=" + NS,
            "--sharegpu.extender.advertise-url=https://127.0.0.1:" + verbPort)
        .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
        .env("KUBECONFIG", cluster.kubeconfig().toString())
        .env("SERVER_PORT", String.valueOf(verbPort))
        .env("SHAREGPU_EXTENDER_MANAGEMENTPORT", String.valueOf(management))
        .env("SERVER_SSL_BUNDLE", "extender")
        .env("SERVER_SSL_CLIENTAUTH", "need")
        .env(
            "SPRING_SSL_BUNDLE_PEM_EXTENDER_KEYSTORE_CERTIFICATE",
            pki.resolve("server.crt").toString())
        .env(
            "SPRING_SSL_BUNDLE_PEM_EXTENDER_KEYSTORE_PRIVATEKEY",
            pki.resolve("server.key").toString())
        .env(
            "SPRING_SSL_BUNDLE_PEM_EXTENDER_TRUSTSTORE_CERTIFICATE",
            pki.resolve("ca.crt").toString())
        .env("SPRING_SSL_BUNDLE_PEM_EXTENDER_RELOADONUPDATE", "true")
        .start()
        .waitForHttp(
            "http://127.0.0.1:" + management + "/actuator/health/readiness",
            Duration.ofSeconds(120));
  }

  private static String leaseHolder() {
    Lease lease = client.leases().inNamespace(NS).withName(LEASE).get();
    return lease == null || lease.getSpec() == null
        ? ""
        : String.valueOf(lease.getSpec().getHolderIdentity());
  }

  @AfterAll
  static void stopAll() {
    if (cluster != null) {
      cluster.stopScheduler();
    }
    if (extender != null) {
      extender.stop();
    }
    if (leader != null) {
      leader.stop();
    }
    if (client != null) {
      client.namespaces().withName(NS).delete();
      client.nodes().withName(NODE).delete();
      client.resources(GPUNode.class).withName(NODE).delete();
    }
  }

  @Test
  void kubeSchedulerBindsThroughMutualTlsAndTheFollowerForwardsToTheLeaderOverMutualTls()
      throws Exception {
    createPod("a");
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> NODE.equals(pod("a").getSpec().getNodeName()));
    assertThat(pod("a").getMetadata().getAnnotations())
        .containsEntry(ShareGpuAnnotations.ASSIGNED_GPUS, "GPU-" + NODE + "-0");
    // kube-scheduler called the follower; the follower's certificate got it into the leader
    assertThat(leaseHolder()).isEqualTo("https://127.0.0.1:" + leaderPort);
    assertThat(
            metric(
                followerManagementPort,
                "sharegpu_decisions_total{outcome=\"forwarded\",verb=\"bind\"}"))
        .isGreaterThanOrEqualTo(1.0);
    assertThat(metric(managementPort, "sharegpu_decisions_total{outcome=\"bound\",verb=\"bind\"}"))
        .isGreaterThanOrEqualTo(1.0);
  }

  private static double metric(int management, String prefix) throws Exception {
    String body =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + management + "/actuator/prometheus"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return body.lines()
        .filter(l -> l.startsWith(prefix + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElse(0.0);
  }

  @Test
  void verbsRefuseCallersWithoutAClientCertificateOfTheCa() throws Exception {
    SSLContext noCertificate = context(null);
    SSLContext otherCa = context(pki.resolve("rogue.p12"));
    for (String verb : List.of("/filter", "/bind")) {
      assertRefused(noCertificate, verb);
      assertRefused(otherCa, verb);
    }
    // the scheduler's certificate is accepted: a well-formed filter call for no node answers 200
    HttpResponse<String> accepted =
        post(context(pki.resolve("scheduler.p12")), verbUrl("/filter"), filterBody());
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
  }

  @Test
  void eachPathAnswersOnItsOwnPortOnly() throws Exception {
    HttpClient plain = HttpClient.newHttpClient();
    HttpResponse<String> debug =
        plain.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + managementPort + "/debug/allocations"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(debug.statusCode()).as(debug.body()).isEqualTo(200);
    HttpResponse<String> verbOnManagement =
        plain.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/bind"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(verbOnManagement.statusCode()).isEqualTo(404);

    HttpClient scheduler =
        HttpClient.newBuilder().sslContext(context(pki.resolve("scheduler.p12"))).build();
    for (String path : List.of("/debug/allocations", "/actuator/prometheus", "/ui/")) {
      HttpResponse<String> onVerbPort =
          scheduler.send(
              HttpRequest.newBuilder(URI.create(verbUrl(path))).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(onVerbPort.statusCode()).as(path).isEqualTo(404);
    }
  }

  // ------------------------------------------------------------------------------------ helpers

  private static void assertRefused(SSLContext ssl, String verb) {
    try {
      HttpResponse<String> r = post(ssl, verbUrl(verb), filterBody());
      assertThat(r.statusCode()).as("%s answered %s", verb, r.body()).isBetween(400, 499);
      System.out.printf("%s refused with HTTP %d%n", verb, r.statusCode());
    } catch (IOException e) {
      // the TLS handshake failed: refused before any HTTP
      System.out.printf("%s refused: %s%n", verb, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static HttpResponse<String> post(SSLContext ssl, String url, String body)
      throws IOException, InterruptedException {
    return HttpClient.newBuilder()
        .sslContext(ssl)
        .connectTimeout(Duration.ofSeconds(5))
        .build()
        .send(
            HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static String verbUrl(String path) {
    // the serving certificate names 127.0.0.1 (an IP SAN), so host name checks pass
    return "https://127.0.0.1:" + port + path;
  }

  private static String filterBody() {
    return "{\"Pod\":{\"metadata\":{\"name\":\"x\",\"namespace\":\""
        + NS
        + "\",\"uid\":\"u\"},\"spec\":{\"containers\":[]}},\"NodeNames\":[\""
        + NODE
        + "\"]}";
  }

  /** Trusts the extender's CA; presents the client certificate in {@code keyStore} if given. */
  private static SSLContext context(@Nullable Path keyStore) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(pki.resolve("ca.crt"))) {
      trust.setCertificateEntry(
          "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    KeyManagerFactory kmf = null;
    if (keyStore != null) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(keyStore)) {
        keys.load(in, PASSWORD.toCharArray());
      }
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, PASSWORD.toCharArray());
    }
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return ssl;
  }

  /** examples/scheduler-config.yaml with the extender's tlsConfig (client certificate and CA). */
  private static Path schedulerConfig() throws IOException {
    Path example = TestCluster.repoRoot().resolve("examples/scheduler-config.yaml");
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(example, StandardCharsets.UTF_8)) {
      out.add(line);
      if (line.trim().startsWith("- urlPrefix:")) {
        out.add("    tlsConfig:");
        out.add("      certFile: " + pki.resolve("scheduler.crt"));
        out.add("      keyFile: " + pki.resolve("scheduler.key"));
        out.add("      caFile: " + pki.resolve("ca.crt"));
      }
    }
    assertThat(out).contains("    tlsConfig:");
    Path config = pki.resolve("scheduler-config.yaml");
    Files.write(config, out, StandardCharsets.UTF_8);
    return config;
  }

  /**
   * ca.crt/key, server.crt/key (127.0.0.1 and localhost, server and client use), scheduler.crt/key
   * and scheduler.p12 (client use), and rogue.p12: a client certificate from another CA.
   */
  private static void makeCertificates() throws Exception {
    for (String ca : List.of("ca", "rogue-ca")) {
      openssl(
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "2",
          "-subj",
          "/CN=sharegpu-e2e-" + ca,
          "-keyout",
          ca + ".key",
          "-out",
          ca + ".crt");
    }
    Files.writeString(
        pki.resolve("server.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
            + "extendedKeyUsage=serverAuth,clientAuth\n"
            + "keyUsage=critical,digitalSignature,keyEncipherment\n");
    Files.writeString(
        pki.resolve("client.ext"),
        "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n");
    signed("server", "ca", "server.ext", "/CN=sharegpu-extender");
    signed("scheduler", "ca", "client.ext", "/CN=sharegpu-scheduler");
    signed("rogue", "rogue-ca", "client.ext", "/CN=sharegpu-scheduler");
    for (String client : List.of("scheduler", "rogue")) {
      openssl(
          "pkcs12",
          "-export",
          "-in",
          client + ".crt",
          "-inkey",
          client + ".key",
          "-out",
          client + ".p12",
          "-passout",
          "pass:" + PASSWORD);
    }
  }

  private static void signed(String name, String ca, String ext, String subject) throws Exception {
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        subject,
        "-keyout",
        name + ".key",
        "-out",
        name + ".csr");
    openssl(
        "x509",
        "-req",
        "-in",
        name + ".csr",
        "-CA",
        ca + ".crt",
        "-CAkey",
        ca + ".key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        ext,
        "-out",
        name + ".crt");
  }

  private static void openssl(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(pki.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("openssl %s", command).isTrue();
    assertThat(p.exitValue()).as("openssl %s: %s", command, output).isZero();
  }

  private static Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static void createPod(String name) {
    TestPods.pod(name)
        .namespace(NS)
        .model("mtls-e2e")
        .image("busybox")
        .share(250, 0)
        .gracePeriod(0)
        .create(client);
  }
}
