package io.sharegpu.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The archives images/build wrote (the e2e profile builds them in the package phase): each image's
 * config, labels and layers, and each kind of image run under runc as the chart runs it.
 */
class ImageArchivesE2E {

  private static final Path ROOT = TestCluster.repoRoot();
  private static final Path ARCHIVES = ROOT.resolve("images/target");
  private static final Set<String> JAVA_APPS =
      Set.of("scheduler-extender", "sharepod-controller", "admission-webhook", "node-agent");
  private static final Map<String, OciArchive> IMAGES = new LinkedHashMap<>();

  @TempDir static Path work;

  @BeforeAll
  static void readArchives() throws Exception {
    RuncContainer.Result list =
        RuncContainer.execOrFail(
            Duration.ofMinutes(1), ROOT.resolve("images/build").toString(), "--list");
    for (String reference : list.output().lines().filter(l -> !l.isBlank()).toList()) {
      String name = reference.substring(reference.lastIndexOf('/') + 1, reference.lastIndexOf(':'));
      Path archive = ARCHIVES.resolve(name + ".oci.tar");
      assertThat(archive).as("images/build writes %s", archive).isRegularFile();
      OciArchive image = OciArchive.read(archive);
      assertThat(image.reference()).isEqualTo(reference);
      IMAGES.put(name, image);
    }
    assertThat(IMAGES.keySet()).containsAll(JAVA_APPS).contains("kube-scheduler");
  }

  static List<String> names() {
    return List.of(
        "scheduler-extender",
        "sharepod-controller",
        "admission-webhook",
        "node-agent",
        "kube-scheduler");
  }

  @ParameterizedTest
  @MethodSource("names")
  void runsAsNonRootWithOciLabels(String name) {
    OciArchive image = IMAGES.get(name);
    assertThat(image.imageConfig().get("User").asString()).isEqualTo("65532:65532");
    String tag = image.reference().substring(image.reference().lastIndexOf(':') + 1);
    assertThat(image.label("org.opencontainers.image.version")).isEqualTo(tag);
    assertThat(image.label("org.opencontainers.image.source")).startsWith("https://");
    assertThat(image.label("org.opencontainers.image.licenses")).isEqualTo("Apache-2.0");
    assertThat(image.label("org.opencontainers.image.revision")).isNotBlank();
    assertThat(image.label("org.opencontainers.image.title")).isNotBlank();
    assertThat(image.manifest().get("annotations")).isEqualTo(image.imageConfig().get("Labels"));
    assertThat(image.compressedBytes()).isLessThan(100L << 20);
  }

  @ParameterizedTest
  @MethodSource("names")
  void filesAreRootOwnedAndOnlyTmpIsWritable(String name) {
    List<String> problems = new ArrayList<>();
    for (OciArchive.Layer layer : IMAGES.get(name).layers()) {
      for (TarArchiveEntry e : layer.entries()) {
        int mode = e.getMode();
        boolean worldWritable = (mode & 0002) != 0 && !e.isSymbolicLink();
        if (e.getLongUserId() != 0 || e.getLongGroupId() != 0) {
          problems.add(e.getName() + " is owned by " + e.getLongUserId());
        }
        if ((mode & 06000) != 0) {
          problems.add(e.getName() + " is setuid or setgid");
        }
        if (worldWritable && !(e.getName().equals("tmp/") && mode == 01777)) {
          problems.add(e.getName() + " is writable by anyone");
        }
      }
    }
    assertThat(problems).isEmpty();
    OciArchive.Layer base = IMAGES.get(name).layers().get(0);
    assertThat(base.has("tmp/")).isTrue();
    assertThat(base.has("etc/passwd")).isTrue();
  }

  @ParameterizedTest
  @MethodSource("names")
  void layersGoFromTheSharedBaseToTheSmallAppLayer(String name) {
    OciArchive image = IMAGES.get(name);
    List<String> layers = image.layers().stream().map(OciArchive.Layer::createdBy).toList();
    if (JAVA_APPS.contains(name)) {
      assertThat(layers)
          .containsExactly(
              "images/build: base",
              "images/build: java",
              "images/build: libraries",
              "images/build: dependencies",
              "images/build: modules",
              "images/build: application");
      OciArchive.Layer top = image.layers().get(image.layers().size() - 1);
      assertThat(top.entries().stream().filter(e -> e.isFile()).map(TarArchiveEntry::getName))
          .containsExactly("app/app.jar");
      assertThat(top.compressedBytes()).isLessThan(1L << 20);
      assertThat(image.entrypoint())
          .startsWith("/opt/java/bin/java")
          .endsWith("-jar", "/app/app.jar");
    } else {
      assertThat(layers).containsExactly("images/build: base", "images/build: binary");
      assertThat(image.entrypoint()).containsExactly("/usr/local/bin/kube-scheduler");
    }
  }

  @Test
  void baseRuntimeAndCommonLibrariesAreOneLayerForAllImages() {
    Set<String> bases =
        IMAGES.values().stream().map(i -> i.layers().get(0).digest()).collect(Collectors.toSet());
    assertThat(bases).hasSize(1);
    for (int layer : List.of(1, 2)) {
      Set<String> digests =
          JAVA_APPS.stream()
              .map(n -> IMAGES.get(n).layers().get(layer).digest())
              .collect(Collectors.toSet());
      assertThat(digests).as("layer %d of the Java images", layer).hasSize(1);
    }
  }

  @Test
  void nodeAgentLoadsJnaFromTheImageWithANoexecTmp() throws Exception {
    // No NVML here: the agent must get as far as asking for libnvidia-ml.so.1, which needs JNA's
    // own native part loaded from /app/native (a noexec /tmp would stop an unpacked copy).
    try (RuncContainer agent =
        RuncContainer.of(
            IMAGES.get("node-agent"), work, List.of("--print-inventory"), Map.of(), Map.of())) {
      RuncContainer.Result result = agent.runToEnd(Duration.ofMinutes(1));
      assertThat(result.output()).contains("libnvidia-ml.so.1").doesNotContain("jnidispatch");
      assertThat(result.exitCode()).as(result.output()).isEqualTo(2);
    }
  }

  @Test
  void nodeAgentPrintsARecordedInventory() throws Exception {
    Path inventory =
        readable(ROOT.resolve("node-agent/src/test/resources/recorded/h200-inventory.json"));
    try (RuncContainer agent =
        RuncContainer.of(
            IMAGES.get("node-agent"),
            work,
            List.of("--print-inventory"),
            Map.of("SHAREGPU_AGENT_INVENTORY_FILE", "/etc/sharegpu/inventory.json"),
            Map.of(inventory, "/etc/sharegpu/inventory.json"))) {
      RuncContainer.Result result = agent.runToEnd(Duration.ofMinutes(1));
      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output())
          .contains("GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7")
          .contains("sharegpu.io/gpu-milli");
    }
  }

  @Test
  void kubeSchedulerReportsItsRelease() throws Exception {
    OciArchive image = IMAGES.get("kube-scheduler");
    try (RuncContainer scheduler =
        RuncContainer.of(image, work, List.of("--version"), Map.of(), Map.of())) {
      RuncContainer.Result result = scheduler.runToEnd(Duration.ofMinutes(1));
      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output().strip())
          .isEqualTo("Kubernetes " + image.label("org.opencontainers.image.version"));
    }
  }

  @Test
  void extenderBecomesReadyAgainstARealApiServer() throws Exception {
    TestCluster cluster = TestCluster.shared();
    cluster.applyCrds(ROOT.resolve("charts/sharegpu/crds"));
    int port = Ports.free();
    int managementPort = Ports.free();
    Path kubeconfig = readable(cluster.kubeconfig());
    try (RuncContainer extender =
        RuncContainer.of(
            IMAGES.get("scheduler-extender"),
            work,
            List.of(
                "--server.port=" + port, "--sharegpu.extender.management-port=" + managementPort),
            Map.of("KUBECONFIG", "/etc/sharegpu/kubeconfig"),
            Map.of(kubeconfig, "/etc/sharegpu/kubeconfig"))) {
      extender.start();
      HttpClient http = HttpClient.newHttpClient();
      URI readiness =
          URI.create("http://127.0.0.1:" + managementPort + "/actuator/health/readiness");
      await()
          .atMost(2, TimeUnit.MINUTES)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .alias("the extender in its image becomes ready")
          .until(
              () ->
                  http.send(
                              HttpRequest.newBuilder(readiness).build(),
                              HttpResponse.BodyHandlers.ofString())
                          .statusCode()
                      == 200);
      assertThat(extender.log())
          .contains("Started SchedulerExtenderApplication")
          .doesNotContain("Read-only file system");
    }
  }

  /** A copy of a file that uid 65532 can read, to bind-mount into a container. */
  private static Path readable(Path file) throws IOException {
    Path copy = Files.createTempFile(work, "mount-", "-" + file.getFileName());
    Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
    Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
    return copy;
  }
}
