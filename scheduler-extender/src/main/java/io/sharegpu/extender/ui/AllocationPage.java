package io.sharegpu.extender.ui;

import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.policy.FgdPolicy;
import io.sharegpu.core.policy.Fragmentation;
import io.sharegpu.core.policy.PodShape;
import io.sharegpu.core.policy.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The allocation page's data: what {@code /debug/nodes} and {@code /debug/allocations} say, in a
 * compact form a browser can load at 5,000 nodes, with the cluster's summary.
 *
 * <p>It reads the debug endpoints' JSON rather than their records, so fields that are added there
 * later (such as {@code cordoned} and {@code cordonReason} per GPU) reach the page without a change
 * here. Strings that repeat are written once in tables ({@code models}, {@code namespaces}, {@code
 * states}, {@code pods}) and referred to by index. One GPU is an array:
 *
 * <pre>
 * [index, uuid, model#, computeMilli, memoryMib, usedMilli, usedMemoryMib, flags, grants, extra]
 * flags: 1 unhealthy, 2 held whole, 4 cordoned
 * grants: [pod#, milli, memoryMib, pod#, milli, memoryMib, ...]  (a pod's containers summed)
 * extra: {"mig": "3g.40gb", "cordonReason": "..."} or null
 * </pre>
 *
 * For example an H100 with {@code ns/a} holding 250m and 10 GiB and nothing else: {@code [0,
 * "GPU-1", 0, 1000, 81559, 250, 10240, 0, [0, 250, 10240], null]} with {@code pods[0] = [ns#, "a",
 * state#]}.
 */
final class AllocationPage {

  /** Flag: the GPU is unhealthy. */
  static final int UNHEALTHY = 1;

  /** Flag: a pod holds the GPU whole. */
  static final int EXCLUSIVE = 2;

  /** Flag: an operator cordoned the GPU. */
  static final int CORDONED = 4;

  private AllocationPage() {}

  /**
   * Builds the page's data.
   *
   * @param version a string that changes when the data may have changed (for the page's display)
   * @param nodes the JSON of {@code /debug/nodes}: {@code [{name, gpus: [{index, uuid, ...}]}]}
   * @param allocations the JSON of {@code /debug/allocations}: one row per container and GPU
   */
  static ObjectNode of(String version, JsonNode nodes, JsonNode allocations) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    Index models = new Index();
    Index namespaces = new Index();
    Index states = new Index();
    Map<String, Integer> podIndex = new HashMap<>();
    ArrayNode pods = f.arrayNode();
    // uuid -> pod# -> [milli, memory]
    Map<String, Map<Integer, long[]>> grants = new HashMap<>();
    for (JsonNode row : allocations) {
      String key = row.path("pod").asString();
      String uid = row.path("podUid").asString();
      Integer p = podIndex.get(uid);
      if (p == null) {
        int slash = key.indexOf('/');
        p = pods.size();
        podIndex.put(uid, p);
        pods.add(
            f.arrayNode()
                .add(namespaces.of(slash < 0 ? "" : key.substring(0, slash)))
                .add(key.substring(slash + 1))
                .add(states.of(row.path("state").asString())));
      }
      long[] g =
          grants
              .computeIfAbsent(row.path("uuid").asString(), u -> new LinkedHashMap<>())
              .computeIfAbsent(p, x -> new long[2]);
      g[0] += row.path("computeMilli").asLong();
      g[1] += row.path("memoryMib").asLong();
    }

    Summary s = new Summary();
    ArrayNode outNodes = f.arrayNode();
    List<NodeView> views = new ArrayList<>();
    for (JsonNode node : nodes) {
      String name = node.path("name").asString();
      ArrayNode gpus = f.arrayNode();
      List<Gpu> coreGpus = new ArrayList<>();
      List<GpuUsage> usages = new ArrayList<>();
      for (JsonNode g : node.path("gpus")) {
        gpus.add(gpu(g, grants, models, s, coreGpus, usages));
      }
      s.nodes++;
      outNodes.add(f.arrayNode().add(name).add(gpus));
      if (!coreGpus.isEmpty()) {
        views.add(new NodeView(GpuNode.of(name, coreGpus), usages, 0, 0));
      }
    }
    Double fragmentation = fragmentationPct(views, allocations);

    ObjectNode out = f.objectNode();
    out.put("version", version);
    ObjectNode summary = out.putObject("summary");
    summary.put("nodes", s.nodes);
    summary.put("gpus", s.gpus);
    summary.put("pods", pods.size());
    summary.put("computeMilli", s.computeMilli);
    summary.put("freeMilli", s.freeMilli);
    summary.put("unallocatedPct", pct(s.freeMilli, s.computeMilli));
    summary.put("idleGpus", s.idle);
    summary.put("partlyUsedGpus", s.partly);
    summary.put("freeOnPartlyUsedPct", pct(s.freeOnPartly, s.freeMilli));
    if (fragmentation == null) {
      summary.putNull("fragmentationPct");
    } else {
      summary.put("fragmentationPct", Math.round(fragmentation * 10) / 10.0);
    }
    summary.put("unhealthyGpus", s.unhealthy);
    summary.put("cordonedGpus", s.cordoned);
    out.set("models", models.json(f));
    out.set("namespaces", namespaces.json(f));
    out.set("states", states.json(f));
    out.set("pods", pods);
    out.set("nodes", outNodes);
    return out;
  }

  private static ArrayNode gpu(
      JsonNode g,
      Map<String, Map<Integer, long[]>> grants,
      Index models,
      Summary s,
      List<Gpu> coreGpus,
      List<GpuUsage> usages) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    String uuid = g.path("uuid").asString();
    int compute = g.path("computeMilli").asInt();
    long memory = g.path("memoryMib").asLong();
    int used = g.path("usedMilli").asInt();
    long usedMemory = g.path("usedMemoryMib").asLong();
    boolean healthy = g.path("healthy").asBoolean(true);
    boolean exclusive = g.path("exclusive").asBoolean();
    boolean cordoned = g.path("cordoned").asBoolean();
    int flags = (healthy ? 0 : UNHEALTHY) | (exclusive ? EXCLUSIVE : 0) | (cordoned ? CORDONED : 0);
    ArrayNode grantArray = f.arrayNode();
    Map<Integer, long[]> onGpu = grants.getOrDefault(uuid, Map.of());
    onGpu.forEach((pod, v) -> grantArray.add(pod).add(v[0]).add(v[1]));
    ObjectNode extra = null;
    String mig = text(g, "migProfile");
    String reason = text(g, "cordonReason");
    if (mig != null || (cordoned && reason != null)) {
      extra = f.objectNode();
      if (mig != null) {
        extra.put("mig", mig);
      }
      if (cordoned && reason != null) {
        extra.put("cordonReason", reason);
      }
    }
    ArrayNode out =
        f.arrayNode()
            .add(g.path("index").asInt())
            .add(uuid)
            .add(models.of(g.path("model").asString()))
            .add(compute)
            .add(memory)
            .add(used)
            .add(usedMemory)
            .add(flags)
            .add(grantArray);
    if (extra == null) {
      out.addNull();
    } else {
      out.add(extra);
    }

    boolean usable = healthy && !cordoned;
    int free = usable && !exclusive ? Math.max(0, compute - used) : 0;
    s.gpus++;
    s.computeMilli += compute;
    s.freeMilli += free;
    if (!healthy) {
      s.unhealthy++;
    }
    if (cordoned) {
      s.cordoned++;
    }
    if (usable && onGpu.isEmpty() && used == 0) {
      s.idle++;
    } else if (usable && free > 0) {
      s.partly++;
      s.freeOnPartly += free;
    }
    if (compute > 0 && compute <= 1000 && g.path("index").asInt() >= 0 && !uuid.isBlank()) {
      Gpu core =
          new Gpu(
              uuid,
              g.path("index").asInt(),
              g.path("model").asString(),
              Math.max(0, memory),
              compute,
              usable,
              text(g, "parentUuid"),
              mig);
      List<String> keys = new ArrayList<>();
      g.path("pods").forEach(p -> keys.add(p.asString()));
      coreGpus.add(core);
      usages.add(new GpuUsage(core, used, usedMemory, exclusive, keys));
    }
    return out;
  }

  /**
   * FGD's fragmentation rate, as the simulator reports it: the expected fragment summed over the
   * nodes ÷ free GPU compute, in %. The workload is the shapes of the pods placed now; null when no
   * pod is placed (no workload to measure against) or nothing is free.
   */
  static @Nullable Double fragmentationPct(List<NodeView> views, JsonNode allocations) {
    // pod uid -> container -> [milli per GPU, GPUs]
    Map<String, Map<String, int[]>> byPod = new HashMap<>();
    for (JsonNode row : allocations) {
      int[] c =
          byPod
              .computeIfAbsent(row.path("podUid").asString(), u -> new HashMap<>())
              .computeIfAbsent(row.path("container").asString(), x -> new int[2]);
      c[0] = Math.max(c[0], row.path("computeMilli").asInt());
      c[1]++;
    }
    List<PodShape> shapes = new ArrayList<>();
    for (Map<String, int[]> containers : byPod.values()) {
      int[] big = null;
      for (int[] c : containers.values()) {
        if (big == null || (long) c[0] * c[1] > (long) big[0] * big[1]) {
          big = c;
        }
      }
      if (big == null || big[0] <= 0) {
        continue;
      }
      boolean whole = big[1] > 1 || big[0] >= 1000;
      shapes.add(new PodShape(0, whole ? 1000 : big[0], whole ? big[1] : 1, Set.of()));
    }
    if (shapes.isEmpty()) {
      return null;
    }
    Workload workload = Workload.fit(shapes, FgdPolicy.COVERAGE);
    double fragment = 0;
    long free = 0;
    for (NodeView v : views) {
      fragment += Fragmentation.of(v, workload);
      free += Fragmentation.freeMilli(v);
    }
    return free == 0 ? null : fragment * 100 / free;
  }

  private static double pct(long part, long whole) {
    return whole == 0 ? 0 : Math.round(part * 1000.0 / whole) / 10.0;
  }

  private static @Nullable String text(JsonNode g, String field) {
    JsonNode v = g.get(field);
    return v == null || v.isNull() || v.asString().isEmpty() ? null : v.asString();
  }

  /** Counters over all GPUs. */
  private static final class Summary {
    int nodes;
    int gpus;
    long computeMilli;
    long freeMilli;
    int idle;
    int partly;
    long freeOnPartly;
    int unhealthy;
    int cordoned;
  }

  /** Strings numbered in the order first seen. */
  private static final class Index {
    private final Map<String, Integer> numbers = new HashMap<>();
    private final List<String> strings = new ArrayList<>();

    int of(String s) {
      Integer n = numbers.get(s);
      if (n == null) {
        n = strings.size();
        numbers.put(s, n);
        strings.add(s);
      }
      return n;
    }

    ArrayNode json(JsonNodeFactory f) {
      ArrayNode a = f.arrayNode();
      strings.forEach(a::add);
      return a;
    }
  }
}
