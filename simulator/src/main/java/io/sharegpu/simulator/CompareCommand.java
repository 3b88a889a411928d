package io.sharegpu.simulator;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
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
import java.util.function.Function;

/**
 * {@code compare}: every policy × every pod list × every seed, printed as one table of unallocated
 * GPU % at 100% arrived (mean ± std over the seeds), then the second objective (GPUs left empty,
 * nodes touched) for the same cells; optionally JSON and a plot.
 */
final class CompareCommand {
  private static final String PREFIX = "openb_pod_list_";

  private CompareCommand() {}

  static void run(Map<String, String> opts, PrintStream out, PrintStream err) throws IOException {
    if (opts.containsKey("from")) {
      fromSaved(opts, out, err);
      return;
    }
    Path nodesFile = Path.of(Main.required(opts, "nodes"));
    Map<String, Path> lists = lists(opts);
    List<String> policies = SimulatorPolicies.parse(opts.getOrDefault("policy", "all"));
    String seedSpec = opts.getOrDefault("seeds", "42-51");
    List<Long> seeds = Main.seeds(seedSpec);
    int threads =
        Math.max(1, Main.integer(opts, "threads", Runtime.getRuntime().availableProcessors()));
    var nodes = TraceFiles.readNodes(nodesFile);

    Map<String, Replay> replays = new LinkedHashMap<>();
    for (Map.Entry<String, Path> e : lists.entrySet()) {
      replays.put(e.getKey(), new Replay(nodes, TraceFiles.readPods(e.getValue())));
    }
    Map<String, Map<String, Summary>> table = new LinkedHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    try {
      Map<String, Map<String, List<Future<SeedResult>>>> futures = new LinkedHashMap<>();
      int total = policies.size() * lists.size() * seeds.size();
      int[] done = {0};
      // seeds outermost: a run stopped early still has every cell for the first seeds
      for (long seed : seeds) {
        for (String list : lists.keySet()) {
          for (String policy : policies) {
            Replay replay = replays.get(list);
            futures
                .computeIfAbsent(policy, k -> new LinkedHashMap<>())
                .computeIfAbsent(list, k -> new ArrayList<>())
                .add(
                    pool.submit(
                        () -> {
                          SeedResult r = replay.run(policy, seed);
                          synchronized (done) {
                            done[0]++;
                            err.printf(
                                Locale.ROOT,
                                "[%d/%d] %s %s seed %d: unallocated %.2f%%, empty GPUs %.2f%%,"
                                    + " nodes at 50%% %d, CPU-stranded %.2f%%, memory-stranded"
                                    + " %.2f%% (%.1f s)%n",
                                done[0],
                                total,
                                list,
                                policy,
                                seed,
                                r.unallocatedPctAt100(),
                                r.emptyGpuPctAt100(),
                                r.nodesTouchedAt50(),
                                r.cpuStrandedPctAt100(),
                                r.memoryStrandedPctAt100(),
                                r.millis() / 1000.0);
                          }
                          return r;
                        }));
          }
        }
      }
      for (String policy : policies) {
        Map<String, Summary> row = new LinkedHashMap<>();
        for (String list : lists.keySet()) {
          List<SeedResult> rs = new ArrayList<>();
          for (Future<SeedResult> f : futures.get(policy).get(list)) {
            rs.add(f.get());
          }
          row.put(list, Summary.of(policy, list, rs));
        }
        table.put(policy, row);
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
    double seconds = (System.nanoTime() - start) / 1e9;

    out.printf(
        Locale.ROOT,
        "nodes: %s; seeds: %s; %d policies x %d lists x %d seeds in %.0f s%n%n",
        nodesFile.getFileName(),
        seedSpec,
        policies.size(),
        lists.size(),
        seeds.size(),
        seconds);
    report(
        opts,
        out,
        err,
        table,
        new ArrayList<>(lists.keySet()),
        replays.values().iterator().next().nodeCount(),
        String.valueOf(seeds.size()));
  }

  /** Prints both tables and writes the JSON and the plot when asked. */
  private static void report(
      Map<String, String> opts,
      PrintStream out,
      PrintStream err,
      Map<String, Map<String, Summary>> table,
      List<String> lists,
      int nodeCount,
      String seedCount)
      throws IOException {
    out.println("Unallocated GPU % at 100% arrived, mean ± std over the seeds:");
    out.println();
    print(out, table, lists, s -> pm(s.unallocated(), 2));
    out.println();
    out.println(
        "Second objective: GPUs no pod holds, % of all GPUs, at 100% arrived / at 50% arrived;"
            + " nodes holding any pod at 50% arrived ("
            + (nodeCount > 0 ? "of " + nodeCount : "of the node list")
            + "; means over the seeds):");
    out.println();
    print(
        out,
        table,
        lists,
        s ->
            String.format(
                Locale.ROOT,
                "%.1f / %.1f / %.0f",
                s.emptyGpus().mean(),
                s.emptyGpusAt50().mean(),
                s.nodesTouchedAt50().mean()));

    String json = opts.get("json");
    if (json != null) {
      List<Object> reports = new ArrayList<>();
      for (Map<String, Summary> row : table.values()) {
        for (Summary s : row.values()) {
          reports.add(s.toJson());
        }
      }
      Map<String, Object> doc = new LinkedHashMap<>();
      if (nodeCount > 0) {
        doc.put("nodeCount", nodeCount);
      }
      doc.put("results", reports);
      Files.writeString(Path.of(json), Json.write(doc), StandardCharsets.UTF_8);
      err.println("wrote " + json);
    }
    String plot = opts.get("plot");
    if (plot != null) {
      Map<String, double[]> means = new LinkedHashMap<>();
      for (Map.Entry<String, Map<String, Summary>> e : table.entrySet()) {
        double[] m = new double[lists.size()];
        for (int i = 0; i < m.length; i++) {
          Summary s = e.getValue().get(lists.get(i));
          m[i] = s == null ? Double.NaN : s.unallocated().mean();
        }
        means.put(e.getKey(), m);
      }
      ComparePlot.write(
          Path.of(plot),
          "Unallocated GPU at 100% arrived, mean of " + seedCount + " seeds",
          lists,
          means);
      err.println("wrote " + plot);
    }
  }

  /**
   * {@code --from a.json,b.json}: the tables, JSON and plot again from saved {@code compare --json}
   * or {@code replay --json} files, without replaying; for a matrix run in parts (other policies,
   * lists or seeds on other machines). The seeds of the same policy and list are merged; a seed in
   * two files must be the same run (the replays are deterministic), else it is an error. Policies
   * come in the order of {@code --policy all} (others after them), lists in the order in which the
   * files name them first.
   */
  private static void fromSaved(Map<String, String> opts, PrintStream out, PrintStream err)
      throws IOException {
    Map<String, Map<String, Map<Long, SeedResult>>> runs = new LinkedHashMap<>();
    List<String> lists = new ArrayList<>();
    List<String> files = new ArrayList<>();
    int nodeCount = 0;
    for (String f : opts.get("from").split(",")) {
      if (f.isBlank()) {
        continue;
      }
      files.add(Path.of(f.trim()).getFileName().toString());
      String json = Files.readString(Path.of(f.trim()), StandardCharsets.UTF_8);
      int n = SavedRun.nodeCount(json);
      if (n > 0 && nodeCount > 0 && n != nodeCount) {
        throw new IOException(
            f.trim() + " was run on " + n + " nodes, another file on " + nodeCount);
      }
      nodeCount = Math.max(nodeCount, n);
      for (SavedRun r : SavedRun.parse(json, f.trim())) {
        if (!lists.contains(r.list())) {
          lists.add(r.list());
        }
        Map<Long, SeedResult> seeds =
            runs.computeIfAbsent(r.policy(), k -> new LinkedHashMap<>())
                .computeIfAbsent(r.list(), k -> new LinkedHashMap<>());
        SeedResult before = seeds.put(r.result().seed(), r.result());
        if (before != null && before.unallocatedPctAt100() != r.result().unallocatedPctAt100()) {
          throw new IOException(
              r.policy()
                  + " on "
                  + r.list()
                  + " seed "
                  + r.result().seed()
                  + " differs between the files: "
                  + before.unallocatedPctAt100()
                  + " and "
                  + r.result().unallocatedPctAt100());
        }
      }
    }
    if (runs.isEmpty()) {
      throw new Main.UsageException("--from names no saved run");
    }
    Map<String, Map<String, Summary>> table = new LinkedHashMap<>();
    java.util.TreeSet<Integer> seedCounts = new java.util.TreeSet<>();
    List<Map.Entry<String, Map<String, Map<Long, SeedResult>>>> ordered =
        new ArrayList<>(runs.entrySet());
    List<String> canonical = SimulatorPolicies.comparison();
    ordered.sort(
        java.util.Comparator.comparingInt(
            e -> {
              int i = canonical.indexOf(e.getKey());
              return i < 0 ? canonical.size() : i;
            }));
    for (Map.Entry<String, Map<String, Map<Long, SeedResult>>> p : ordered) {
      Map<String, Summary> row = new LinkedHashMap<>();
      for (String list : lists) {
        Map<Long, SeedResult> seeds = p.getValue().get(list);
        if (seeds != null) {
          List<SeedResult> sorted = new ArrayList<>(seeds.values());
          sorted.sort(java.util.Comparator.comparingLong(SeedResult::seed));
          row.put(list, Summary.of(p.getKey(), list, sorted));
          seedCounts.add(sorted.size());
        }
      }
      table.put(p.getKey(), row);
    }
    String seedLabel =
        seedCounts.size() == 1
            ? seedCounts.iterator().next().toString()
            : seedCounts.first() + " to " + seedCounts.last();
    out.printf(
        Locale.ROOT,
        "from: %s; %d policies x %d lists, %s seeds per cell%n%n",
        String.join(", ", files),
        table.size(),
        lists.size(),
        seedLabel);
    report(opts, out, err, table, lists, nodeCount, seedLabel);
  }

  /** A Markdown table: one row per policy, one column per list. */
  private static void print(
      PrintStream out,
      Map<String, Map<String, Summary>> table,
      List<String> lists,
      Function<Summary, String> cell) {
    StringBuilder head = new StringBuilder("| policy |");
    StringBuilder rule = new StringBuilder("|---|");
    for (String list : lists) {
      head.append(' ').append(list).append(" |");
      rule.append("---|");
    }
    out.println(head);
    out.println(rule);
    for (Map.Entry<String, Map<String, Summary>> e : table.entrySet()) {
      StringBuilder row = new StringBuilder("| ").append(e.getKey()).append(" |");
      for (String list : lists) {
        Summary s = e.getValue().get(list);
        row.append(' ').append(s == null ? "—" : cell.apply(s)).append(" |");
      }
      out.println(row);
    }
  }

  private static String pm(Stats s, int decimals) {
    return String.format(
        Locale.ROOT, "%." + decimals + "f ± %." + decimals + "f", s.mean(), s.std());
  }

  /**
   * The pod lists: {@code --pods A.csv,B.csv}, or every {@code openb_pod_list_*.csv} of {@code
   * --pods-dir} (default first, then by name), optionally only those named in {@code --lists}. Each
   * is named by its file name without {@code openb_pod_list_} and {@code .csv}.
   */
  static Map<String, Path> lists(Map<String, String> opts) throws IOException {
    List<Path> files = new ArrayList<>();
    String pods = opts.get("pods");
    String dir = opts.get("pods-dir");
    if (pods != null) {
      for (String f : pods.split(",")) {
        if (!f.isBlank()) {
          files.add(Path.of(f.trim()));
        }
      }
    } else if (dir != null) {
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of(dir), PREFIX + "*.csv")) {
        for (Path p : ds) {
          files.add(p);
        }
      }
      files.sort(
          (a, b) -> {
            boolean da = listName(a).equals("default");
            boolean db = listName(b).equals("default");
            return da != db ? (da ? -1 : 1) : listName(a).compareTo(listName(b));
          });
    } else {
      throw new Main.UsageException("missing --pods or --pods-dir");
    }
    Map<String, Path> out = new LinkedHashMap<>();
    for (Path p : files) {
      out.put(listName(p), p);
    }
    String only = opts.get("lists");
    if (only != null) {
      Map<String, Path> kept = new LinkedHashMap<>();
      for (String l : only.split(",")) {
        Path p = out.get(l.trim());
        if (p == null) {
          throw new Main.UsageException("no pod list '" + l.trim() + "'; found: " + out.keySet());
        }
        kept.put(l.trim(), p);
      }
      out = kept;
    }
    if (out.isEmpty()) {
      throw new Main.UsageException("no pod list found");
    }
    return out;
  }

  static String listName(Path p) {
    String n = p.getFileName().toString();
    if (n.startsWith(PREFIX)) {
      n = n.substring(PREFIX.length());
    }
    return n.endsWith(".csv") ? n.substring(0, n.length() - 4) : n;
  }
}
