package io.sharegpu.extender.bench;

import io.sharegpu.extender.SchedulerExtenderApplication;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.management.ObjectName;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Measures the extender's heap with its informer caches filled: starts {@link FakeApiServer} in a
 * child process (its objects are not in this heap), runs the extender application in this JVM
 * against it, waits until the cluster view is ready and the metrics refreshed once, then collects
 * garbage and prints the heap in use and the largest classes of a live-object histogram.
 *
 * <p>Usage: {@code ExtenderHeapBench [--nodes 5000] [--gpus-per-node 8] [--pods 50000] [--json
 * OUT]}. Run it with {@code -Xmx}: the figure is the live heap after a full GC, and a run that
 * finishes under {@code -Xmx256m} shows that 256 MiB are enough, the informers' initial lists
 * included.
 */
public final class ExtenderHeapBench {

  private static final double MIB = 1024.0 * 1024.0;

  private ExtenderHeapBench() {}

  /** Runs the measurement. */
  public static void main(String[] args) throws Exception {
    int nodes = 5000;
    int gpusPerNode = 8;
    int pods = 50_000;
    Path json = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--nodes" -> nodes = Integer.parseInt(args[++i]);
        case "--gpus-per-node" -> gpusPerNode = Integer.parseInt(args[++i]);
        case "--pods" -> pods = Integer.parseInt(args[++i]);
        case "--json" -> json = Path.of(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown argument "
                    + args[i]
                    + "; usage: [--nodes N] [--gpus-per-node N] [--pods N] [--json OUT]");
      }
    }
    Process server =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-Dfake.log=" + Boolean.getBoolean("fake.log"),
                "-cp",
                System.getProperty("java.class.path"),
                FakeApiServer.class.getName(),
                Integer.toString(nodes),
                Integer.toString(gpusPerNode),
                Integer.toString(pods))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      if (line == null || !line.startsWith("port ")) {
        throw new IllegalStateException("fake API server did not start: " + line);
      }
      String master = "http://127.0.0.1:" + line.substring(5).trim();
      System.setProperty("kubernetes.master", master);
      System.setProperty("kubernetes.auth.tryKubeConfig", "false");
      System.setProperty("kubernetes.auth.tryServiceAccount", "false");
      System.setProperty("kubernetes.tryNamespacePath", "false");
      System.setProperty("kubernetes.namespace", "default");

      double before = liveHeapMib();
      long start = System.nanoTime();
      try (ConfigurableApplicationContext ctx =
          new SpringApplicationBuilder(SchedulerExtenderApplication.class)
              .run(
                  "--server.port=0",
                  "--sharegpu.extender.management-port=0",
                  "--spring.main.banner-mode=off")) {
        SchedulingState view = ctx.getBean(SchedulingState.class);
        long deadline = System.nanoTime() + Duration.ofMinutes(20).toNanos();
        while (!view.isReady()) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("cluster view not ready: " + view.notReadyReason());
          }
          Thread.sleep(200);
        }
        double readySeconds = (System.nanoTime() - start) / 1e9;
        // the per-node gauges (per-GPU ones with -Dsharegpu.metrics.per-gpu=true) are registered by
        // the first metrics refresh (every 5 s by default)
        Thread.sleep(11_000);
        int gpuNodes = view.withLedger(l -> l.nodes().size());
        int allocations = view.withLedger(l -> l.allocations().size());
        double after = liveHeapMib();
        List<String> histogram = histogram(25);
        System.out.printf(
            Locale.ROOT,
            "%n%d nodes x %d GPUs, %d pods (%d bound with GPUs); ledger: %d GPU nodes, %d"
                + " allocations; ready after %.1f s%n",
            nodes,
            gpusPerNode,
            pods,
            new ClusterObjects(nodes, gpusPerNode, pods).boundGpuPods(),
            gpuNodes,
            allocations,
            readySeconds);
        System.out.printf(
            Locale.ROOT,
            "live heap before the application started: %.1f MiB%n"
                + "live heap with the caches filled:        %.1f MiB (max heap %.0f MiB)%n"
                + "difference:                              %.1f MiB%n%n",
            before,
            after,
            Runtime.getRuntime().maxMemory() / MIB,
            after - before);
        histogram.forEach(System.out::println);
        if (json != null) {
          Files.writeString(
              json,
              String.format(
                  Locale.ROOT,
                  "{\"nodes\": %d, \"gpusPerNode\": %d, \"pods\": %d, \"allocations\": %d,"
                      + " \"readySeconds\": %.1f, \"liveHeapBeforeMiB\": %.1f,"
                      + " \"liveHeapMiB\": %.1f, \"maxHeapMiB\": %.0f}%n",
                  nodes,
                  gpusPerNode,
                  pods,
                  allocations,
                  readySeconds,
                  before,
                  after,
                  Runtime.getRuntime().maxMemory() / MIB));
        }
      }
    } finally {
      server.getOutputStream().close();
      server.destroy();
      server.waitFor();
    }
    System.exit(0);
  }

  /** Heap in use after full collections, MiB. */
  private static double liveHeapMib() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return memory.getHeapMemoryUsage().getUsed() / MIB;
  }

  /** The first {@code rows} classes of {@code GC.class_histogram} (live objects) and its total. */
  private static List<String> histogram(int rows) throws Exception {
    String text =
        (String)
            ManagementFactory.getPlatformMBeanServer()
                .invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram",
                    new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
    String[] lines = text.split("\n");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < lines.length && i < rows + 2; i++) {
      out.add(lines[i]);
    }
    out.add(lines[lines.length - 1]);
    return out;
  }
}
