package io.sharegpu.simulator;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** {@code replay}: every policy × every seed, a table, optionally JSON and a plot. */
final class ReplayCommand {
  private ReplayCommand() {}

  static void run(Map<String, String> opts, PrintStream out, PrintStream err) throws IOException {
    Path nodesFile = Path.of(Main.required(opts, "nodes"));
    Path podsFile = Path.of(Main.required(opts, "pods"));
    List<String> policies = SimulatorPolicies.parse(Main.required(opts, "policy"));
    List<Long> seeds = Main.seeds(opts.getOrDefault("seeds", "42-51"));
    int threads =
        Math.max(1, Main.integer(opts, "threads", Runtime.getRuntime().availableProcessors()));
    Replay replay = new Replay(TraceFiles.readNodes(nodesFile), TraceFiles.readPods(podsFile));
    String podsName = podsFile.getFileName().toString();

    Map<String, List<SeedResult>> results = new LinkedHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      Map<String, List<Future<SeedResult>>> futures = new LinkedHashMap<>();
      int total = policies.size() * seeds.size();
      int[] done = {0};
      for (String policy : policies) {
        List<Future<SeedResult>> fs = new ArrayList<>();
        for (long seed : seeds) {
          fs.add(
              pool.submit(
                  () -> {
                    SeedResult r = replay.run(policy, seed);
                    synchronized (done) {
                      done[0]++;
                      err.printf(
                          Locale.ROOT,
                          "[%d/%d] %s seed %d: unallocated %.2f%% at 100%% arrived (%d pods, %.1f s)%n",
                          done[0],
                          total,
                          policy,
                          seed,
                          r.unallocatedPctAt100(),
                          r.pods(),
                          r.millis() / 1000.0);
                    }
                    return r;
                  }));
        }
        futures.put(policy, fs);
      }
      for (Map.Entry<String, List<Future<SeedResult>>> e : futures.entrySet()) {
        List<SeedResult> rs = new ArrayList<>();
        for (Future<SeedResult> f : e.getValue()) {
          rs.add(f.get());
        }
        results.put(e.getKey(), rs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException re) {
        throw re;
      }
      throw new IOException(c);
    } finally {
      pool.shutdownNow();
    }

    out.printf(
        Locale.ROOT,
        "pods: %s, nodes: %s, seeds: %s%n",
        podsName,
        nodesFile.getFileName(),
        opts.getOrDefault("seeds", "42-51"));
    out.printf(
        Locale.ROOT,
        "%-12s %22s %20s %22s%n",
        "policy",
        "unallocated@100% (sd)",
        "allocation@100%",
        "fragmentation@80%");
    List<Object> reports = new ArrayList<>();
    Map<String, double[]> curves = new LinkedHashMap<>();
    for (Map.Entry<String, List<SeedResult>> e : results.entrySet()) {
      Summary s = Summary.of(e.getKey(), podsName, e.getValue());
      out.printf(
          Locale.ROOT,
          "%-12s %14.2f (%.2f) %20.2f %22.2f%n",
          s.policy(),
          s.unallocated().mean(),
          s.unallocated().std(),
          s.allocationRatio().mean(),
          s.fragmentationRate().mean());
      reports.add(s.toJson());
      curves.put(s.policy(), s.curve());
    }
    String json = opts.get("json");
    if (json != null) {
      Object doc = reports.size() == 1 ? reports.get(0) : Map.of("results", reports);
      Files.writeString(Path.of(json), Json.write(doc), StandardCharsets.UTF_8);
      err.println("wrote " + json);
    }
    String plot = opts.get("plot");
    if (plot != null) {
      Plot.write(
          Path.of(plot),
          "Unallocated GPU vs arrived, " + podsName + " (mean of " + seeds.size() + " seeds)",
          curves);
      err.println("wrote " + plot);
    }
  }
}
