package io.sharegpu.testcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kubernetes control plane on 127.0.0.1: etcd and kube-apiserver started by {@code
 * testcluster/start}, and on demand a kube-scheduler with the ShareGPU profile ({@code
 * sharegpu-scheduler}) calling an extender. The binaries are built once into {@code
 * ~/.cache/sharegpu} by {@code testcluster/build}.
 *
 * <p>Tests share one control plane per JVM through {@link #shared()}: separate them by namespace
 * and by object names. There is no kube-controller-manager and no kubelet: nodes are plain API
 * objects, pods stay Pending after binding, and namespaces are never finalised after deletion.
 */
public final class TestCluster {

  private static final Logger log = LoggerFactory.getLogger(TestCluster.class);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(40);
  private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(5);

  private static @Nullable TestCluster shared;

  private final Path root;
  private final Path dir;
  private final String apiServerUrl;
  private final KubernetesClient client;

  private TestCluster(Path root, Path dir, String apiServerUrl, KubernetesClient client) {
    this.root = root;
    this.dir = dir;
    this.apiServerUrl = apiServerUrl;
    this.client = client;
  }

  /**
   * Returns this JVM's control plane, starting it on first use (the first start builds the
   * binaries, which takes minutes) in a new folder under {@code java.io.tmpdir}. A shutdown hook
   * stops it, and a watchdog stops it if the JVM dies without running its hooks.
   */
  public static synchronized TestCluster shared() {
    TestCluster cluster = shared;
    if (cluster == null) {
      Path dir;
      try {
        dir = Files.createTempDirectory("sharegpu-testcluster-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a folder for the test cluster", e);
      }
      cluster = start(dir);
      TestCluster started = cluster;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    started.stop();
                    started.deleteEtcdData();
                  },
                  "testcluster-shutdown"));
      shared = cluster;
    }
    return cluster;
  }

  /**
   * Starts a control plane with its state in {@code dir}; the caller stops it with {@link #stop()}.
   * It is also stopped when this JVM exits.
   */
  public static TestCluster start(Path dir) {
    return start(dir, List.of());
  }

  /**
   * Starts a control plane with its state in {@code dir} and more arguments for {@code
   * testcluster/start} (e.g. {@code --feature-gates DRAConsumableCapacity=true}); the caller stops
   * it with {@link #stop()}. It is also stopped when this JVM exits.
   */
  public static TestCluster start(Path dir, List<String> startArgs) {
    Path root = repoRoot();
    long startedAt = System.nanoTime();
    List<String> args = new ArrayList<>();
    args.add("--dir");
    args.add(dir.toString());
    args.add("--owner-pid");
    args.add(Long.toString(ProcessHandle.current().pid()));
    args.addAll(startArgs);
    ScriptCommand.run(
        root.resolve("testcluster/start"), START_TIMEOUT, args.toArray(String[]::new));
    Map<String, String> env = readEnv(dir.resolve("env"));
    String url = env.get("APISERVER_URL");
    if (url == null) {
      throw new IllegalStateException(dir.resolve("env") + " has no APISERVER_URL");
    }
    Config config = Config.fromKubeconfig(dir.resolve("kubeconfig").toFile());
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    log.info(
        "test cluster in {} ready at {} after {} ms",
        dir,
        url,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt));
    return new TestCluster(root, dir, url, client);
  }

  /** Returns a client with cluster-admin rights (group system:masters). */
  public KubernetesClient client() {
    return client;
  }

  /** Returns the admin kubeconfig, for child processes such as the extender. */
  public Path kubeconfig() {
    return dir.resolve("kubeconfig");
  }

  /** Returns the API server's URL, {@code https://127.0.0.1:<port>}. */
  public String apiServerUrl() {
    return apiServerUrl;
  }

  /** Returns the state folder: certificates, etcd data, {@code logs/}, {@code env}. */
  public Path dir() {
    return dir;
  }

  /**
   * Starts kube-scheduler with the {@code sharegpu-scheduler} profile from {@code
   * examples/scheduler-config.yaml}, calling the extender at {@code extenderUrl} ({@code
   * extenderUrl + "/filter"}, {@code /prioritize}, {@code /bind}); returns once it is healthy.
   */
  public synchronized void startScheduler(String extenderUrl) {
    ScriptCommand.run(
        root.resolve("testcluster/start-scheduler"),
        SCRIPT_TIMEOUT,
        "--dir",
        dir.toString(),
        "--extender-url",
        extenderUrl);
  }

  /**
   * Starts kube-scheduler from the KubeSchedulerConfiguration {@code config} (every extender {@code
   * urlPrefix} in it replaced by {@code extenderUrl}, e.g. one with a {@code tlsConfig} for an
   * extender over mutual TLS); returns once it is healthy.
   */
  public synchronized void startScheduler(String extenderUrl, Path config) {
    ScriptCommand.run(
        root.resolve("testcluster/start-scheduler"),
        SCRIPT_TIMEOUT,
        "--dir",
        dir.toString(),
        "--extender-url",
        extenderUrl,
        "--config",
        config.toString());
  }

  /**
   * Starts kube-scheduler from the KubeSchedulerConfiguration {@code config}, which names no
   * extender (e.g. the default-scheduler profile, whose DynamicResources plugin allocates
   * ResourceClaims); the feature gates of {@code testcluster/start} apply. Returns once it is
   * healthy.
   */
  public synchronized void startSchedulerWithoutExtender(Path config) {
    ScriptCommand.run(
        root.resolve("testcluster/start-scheduler"),
        SCRIPT_TIMEOUT,
        "--dir",
        dir.toString(),
        "--config",
        config.toString());
  }

  /**
   * Runs the cluster's kubectl ({@code testcluster/kubectl --dir DIR ARGS...}) and returns its
   * output (stdout and stderr together); fails the test unless it exits 0 within 60 s.
   */
  public String kubectl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(root.resolve("testcluster/kubectl").toString());
    command.add("--dir");
    command.add(dir.toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(out).isZero();
    return out;
  }

  /** Stops kube-scheduler if it runs. */
  public synchronized void stopScheduler() {
    ScriptCommand.run(
        root.resolve("testcluster/stop-scheduler"), SCRIPT_TIMEOUT, "--dir", dir.toString());
  }

  /** Stops kube-scheduler if it runs and starts it again, calling {@code extenderUrl}. */
  public synchronized void restartScheduler(String extenderUrl) {
    stopScheduler();
    startScheduler(extenderUrl);
  }

  /**
   * Creates or replaces (server-side apply) every CustomResourceDefinition in the {@code *.yaml}
   * and {@code *.yml} files of {@code folder}, then waits until each is Established. Other kinds in
   * those files are ignored.
   */
  public void applyCrds(Path folder) {
    List<Path> files;
    try (Stream<Path> list = Files.list(folder)) {
      files =
          list.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
              .sorted()
              .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list CRD folder " + folder, e);
    }
    List<String> names = new ArrayList<>();
    for (Path file : files) {
      List<HasMetadata> items;
      try (InputStream in = Files.newInputStream(file)) {
        items = client.load(in).items();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
      for (HasMetadata item : items) {
        if (item instanceof CustomResourceDefinition crd) {
          crd.getMetadata().setResourceVersion(null);
          client
              .resource(crd)
              .fieldManager("sharegpu-testcluster")
              .forceConflicts()
              .serverSideApply();
          names.add(crd.getMetadata().getName());
          log.info("applied CRD {} from {}", crd.getMetadata().getName(), file);
        }
      }
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException("no CustomResourceDefinition in " + folder);
    }
    for (String name : names) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(name)
          .waitUntilCondition(TestCluster::established, 60, TimeUnit.SECONDS);
    }
  }

  /** {@link #applyCrds} of ShareGPU's CRDs, {@code charts/sharegpu/crds}. */
  public void applyShareGpuCrds() {
    applyCrds(root.resolve("charts/sharegpu/crds"));
  }

  /** Creates namespace {@code name}, or keeps it if it exists (server-side apply). */
  public void applyNamespace(String name) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .serverSideApply();
  }

  /** Creates namespace {@code name}; fails if it exists. */
  public void createNamespace(String name) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
  }

  /** Stops kube-scheduler, kube-apiserver and etcd; the folder stays for inspection. Idempotent. */
  public synchronized void stop() {
    client.close();
    try {
      ScriptCommand.run(root.resolve("testcluster/stop"), SCRIPT_TIMEOUT, "--dir", dir.toString());
    } catch (RuntimeException e) {
      log.warn("could not stop the test cluster in {}: {}", dir, e.getMessage());
    }
  }

  /** Deletes etcd's data (64 MiB of WAL at least); logs, certificates and kubeconfig stay. */
  private void deleteEtcdData() {
    Path etcd = dir.resolve("etcd");
    if (!Files.isDirectory(etcd)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(etcd)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      log.warn("could not delete {}: {}", etcd, e.toString());
    }
  }

  /**
   * Returns the repository root: the system property {@code sharegpu.repo.root} (set by the parent
   * POM for Failsafe), else the nearest folder at or above the working directory that holds {@code
   * testcluster/build}.
   */
  public static Path repoRoot() {
    String property = System.getProperty("sharegpu.repo.root");
    if (property != null && !property.isBlank()) {
      Path root = Path.of(property).toAbsolutePath().normalize();
      if (!Files.isRegularFile(root.resolve("testcluster/build"))) {
        throw new IllegalStateException(
            "sharegpu.repo.root=" + property + " has no testcluster/build script");
      }
      return root;
    }
    Path start = Path.of("").toAbsolutePath();
    for (Path p = start; p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("testcluster/build"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "no testcluster/build at or above "
            + start
            + "; set the system property sharegpu.repo.root to the repository root");
  }

  private static boolean established(@Nullable CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static Map<String, String> readEnv(Path file) {
    Map<String, String> env = new HashMap<>();
    try {
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          env.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return env;
  }
}
