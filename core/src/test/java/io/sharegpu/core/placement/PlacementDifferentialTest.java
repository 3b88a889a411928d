package io.sharegpu.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.OverCommitException;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.ReferencePlacement.Kind;
import io.sharegpu.core.placement.ReferencePlacement.Reject;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Placement} agrees with {@link ReferencePlacement} on random ledgers and random pods: the
 * same feasible nodes and kinds of rejection from filter, the same 0..10 scores from prioritize,
 * the same GPUs from choose and the same node and GPUs from place. One engine serves each run while
 * the ledger changes under it (commits, releases, state changes, node updates), so stale caches
 * show as disagreements.
 */
class PlacementDifferentialTest {
  private static final int SEEDS = 60;
  private static final int STEPS = 40;

  /** A policy without the GPU fast path: every candidate grant is scored with score(). */
  private record ScoreOnly(PlacementPolicy inner) implements PlacementPolicy {
    @Override
    public String name() {
      return inner.name() + "-score-only";
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      return inner.score(view, pod, grant);
    }
  }

  static Stream<String> policies() {
    return Stream.of(
        "binpack", "spread", "sharegpu", "bestfit", "dotprod", "packing", "binpack-score-only");
  }

  private static LongFunction<PlacementPolicy> factory(String name) {
    if (name.endsWith("-score-only")) {
      String inner = name.substring(0, name.length() - "-score-only".length());
      return seed -> new ScoreOnly(PolicyRegistry.ALL.create(inner, seed));
    }
    return seed -> PolicyRegistry.ALL.create(name, seed);
  }

  @ParameterizedTest
  @MethodSource("policies")
  void engineAgreesWithReference(String policy) {
    Seen seen = new Seen();
    for (long seed = 1; seed <= SEEDS; seed++) {
      try {
        run(factory(policy), seed, seen);
      } catch (AssertionError e) {
        throw new AssertionError(policy + " seed " + seed + ": " + e.getMessage(), e);
      }
    }
    // the random inputs reach every rule: each kind of rejection, placements of every shape
    assertThat(seen.kinds).containsExactlyInAnyOrder(Kind.values());
    assertThat(seen.placed).isGreaterThan(SEEDS * STEPS / 4);
    assertThat(seen.multiContainer).isGreaterThan(50);
    assertThat(seen.wholeGpus).isGreaterThan(50);
    assertThat(seen.onMig).isGreaterThan(10);
  }

  /** What the random inputs exercised, so that the test cannot pass on empty ground. */
  private static final class Seen {
    final Set<Kind> kinds = new HashSet<>();
    int placed;
    int multiContainer;
    int wholeGpus;
    int onMig;

    void placed(Allocation a, Ledger ledger) {
      placed++;
      if (a.containers().size() > 1) {
        multiContainer++;
      }
      GpuNode node = ledger.node(a.node()).orElseThrow();
      for (ContainerGrant c : a.containers()) {
        for (var g : c.gpus()) {
          if (g.isWhole()) {
            wholeGpus++;
          }
          if (node.gpu(g.uuid()).orElseThrow().isMig()) {
            onMig++;
          }
        }
      }
    }
  }

  private static void run(LongFunction<PlacementPolicy> policies, long seed, Seen seen) {
    Random rnd = new Random(seed);
    Ledger ledger = new Ledger();
    List<GpuNode> templates = new ArrayList<>();
    for (int t = 0, count = 1 + rnd.nextInt(4); t < count; t++) {
      templates.add(randomNode(rnd, "t" + t));
    }
    List<GpuNode> nodes = new ArrayList<>();
    for (int n = 0, count = 1 + rnd.nextInt(12); n < count; n++) {
      // alike nodes share a state class: the engine scores them once
      GpuNode node = renamed(templates.get(rnd.nextInt(templates.size())), "n" + n);
      nodes.add(node);
      ledger.putNode(node);
    }
    PlacementPolicy enginePolicy = policies.apply(seed);
    PlacementPolicy referencePolicy = policies.apply(seed);
    Placement engine = new Placement(ledger, enginePolicy);
    ReferencePlacement reference = new ReferencePlacement(ledger, referencePolicy);
    List<String> live = new ArrayList<>();
    for (int step = 0; step < STEPS; step++) {
      PodDemand pod = randomPod(rnd, "p" + step, nodes);
      enginePolicy.observe(pod);
      referencePolicy.observe(pod);
      String at = "step " + step + " pod " + pod;

      List<String> names = randomNames(rnd, nodes);
      FilterResult filtered = engine.filter(pod, names);
      ReferencePlacement.Filtered expected = reference.filter(pod, names);
      assertThat(filtered.feasible()).as("feasible, %s", at).isEqualTo(expected.feasible());
      assertThat(kinds(filtered, pod)).as("rejections, %s", at).isEqualTo(expected.rejected());

      // prioritize right after filter on its feasible nodes (the engine's fast path), then on
      // others
      List<String> feasible = List.copyOf(filtered.feasible());
      assertThat(scores(engine.prioritize(pod, feasible)))
          .as("scores of the feasible nodes, %s", at)
          .isEqualTo(reference.prioritize(pod, feasible));
      List<String> other = randomNames(rnd, nodes);
      assertThat(scores(engine.prioritize(pod, other)))
          .as("scores of %s, %s", other, at)
          .isEqualTo(reference.prioritize(pod, other));

      for (String node : feasible) {
        assertThat(engine.choose(pod, node))
            .as("choice on %s, %s", node, at)
            .isEqualTo(reference.choose(pod, node));
      }
      Optional<Allocation> placed = engine.place(pod);
      assertThat(placed).as("place, %s", at).isEqualTo(reference.place(pod));
      for (Reject r : expected.rejected().values()) {
        seen.kinds.add(r.kind());
      }
      placed.ifPresent(a -> seen.placed(a, ledger));

      mutate(rnd, ledger, nodes, live, pod, placed);
    }
  }

  private static void mutate(
      Random rnd,
      Ledger ledger,
      List<GpuNode> nodes,
      List<String> live,
      PodDemand pod,
      Optional<Allocation> placed) {
    int op = rnd.nextInt(10);
    if (op < 6 && placed.isPresent()) {
      try {
        ledger.commit(placed.get(), pod.cpuMilli(), pod.memoryMib());
      } catch (OverCommitException e) {
        // host CPU or memory of a node that tracks them: a pod that fits leaves the ledger as is
        throw new AssertionError("placement proposed an over-commit: " + e.getMessage(), e);
      }
      live.add(pod.podUid());
    } else if (op < 8 && !live.isEmpty()) {
      ledger.release(live.remove(rnd.nextInt(live.size())));
    } else if (op < 9 && !live.isEmpty()) {
      ledger.setState(live.get(rnd.nextInt(live.size())), AllocationState.values()[rnd.nextInt(3)]);
    } else {
      int n = rnd.nextInt(nodes.size());
      GpuNode old = nodes.get(n);
      List<Gpu> gpus = new ArrayList<>();
      for (Gpu g : old.gpus()) {
        Gpu changed = g.withHealthy(rnd.nextInt(6) != 0);
        gpus.add(rnd.nextInt(6) == 0 ? changed.withCordon("Xid 79") : changed.withCordon(null));
      }
      GpuNode updated = new GpuNode(old.name(), gpus, old.cpuMilli(), old.memoryMib());
      nodes.set(n, updated);
      ledger.putNode(updated);
    }
  }

  private static final Pattern WHOLE =
      Pattern.compile("needs \\d+ idle GPUs?( with \\d+ MiB memory)?, found (\\d+).*");
  private static final Pattern CONTAINER = Pattern.compile("container ([^:]+): (.*)");

  /** The engine's rejections as kinds, read from its words. */
  private static Map<String, Reject> kinds(FilterResult r, PodDemand pod) {
    Map<String, Reject> out = new LinkedHashMap<>();
    for (int i = 0; i < r.rejectedCount(); i++) {
      Rejection rejection = r.rejection(i);
      out.put(rejection.node(), kind(rejection.reason(), pod));
    }
    return out;
  }

  private static Reject kind(String reason, PodDemand pod) {
    if (reason.startsWith("no GPUNode for this node")) {
      return new Reject(Kind.UNKNOWN_NODE, null, 0);
    }
    if (reason.startsWith("not enough free host CPU")) {
      return new Reject(Kind.HOST_CPU, null, 0);
    }
    if (reason.startsWith("not enough free host memory")) {
      return new Reject(Kind.HOST_MEMORY, null, 0);
    }
    @Nullable String container = null;
    String rest = reason;
    if (pod.containers().size() > 1) {
      Matcher m = CONTAINER.matcher(reason);
      assertThat(m.matches()).as("container named in '%s'", reason).isTrue();
      container = m.group(1);
      rest = m.group(2);
    }
    if (rest.equals("the node has no GPUs")) {
      return new Reject(Kind.NO_GPUS, container, 0);
    }
    if (rest.startsWith("no GPU the pod may use: ")) {
      return new Reject(Kind.NO_USABLE_GPU, container, 0);
    }
    if (rest.startsWith("no GPU has ")) {
      return new Reject(Kind.SHARE, container, 0);
    }
    Matcher whole = WHOLE.matcher(rest);
    if (whole.matches()) {
      return new Reject(Kind.WHOLE, container, Integer.parseInt(whole.group(2)));
    }
    throw new AssertionError("unknown rejection words: " + reason);
  }

  private static Map<String, Integer> scores(NodeScores s) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (int i = 0; i < s.size(); i++) {
      out.put(s.node(i), s.score(i));
    }
    return out;
  }

  // ---------------------------------------------------------------- random inputs

  private static final String[] MODELS = {
    "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA L4"
  };
  private static final long[] MIB = {81559, 40960, 23034};

  static GpuNode randomNode(Random rnd, String name) {
    List<Gpu> gpus = new ArrayList<>();
    int count = rnd.nextInt(10) == 0 ? 0 : 1 + rnd.nextInt(5);
    int index = 0;
    for (int g = 0; g < count; g++) {
      int m = rnd.nextInt(MODELS.length);
      String uuid = "GPU-" + name + "-" + g;
      boolean healthy = rnd.nextInt(12) != 0;
      String cordon = rnd.nextInt(15) == 0 ? "Xid 79" : null;
      gpus.add(new Gpu(uuid, index++, MODELS[m], MIB[m], 1000, healthy, null, null, cordon));
      if (m == 0 && rnd.nextInt(5) == 0) {
        // MIG enabled: only the instances are used
        for (int s = 0, slices = 1 + rnd.nextInt(3); s < slices; s++) {
          boolean big = rnd.nextBoolean();
          gpus.add(
              new Gpu(
                  uuid + "-mig" + s,
                  index++,
                  MODELS[m],
                  big ? 40192 : 9856,
                  big ? 428 : 142,
                  rnd.nextInt(10) != 0,
                  uuid,
                  big ? "3g.40gb" : "1g.10gb"));
        }
      }
    }
    boolean host = rnd.nextInt(3) == 0;
    return new GpuNode(name, gpus, host ? 8000 * (1 + rnd.nextInt(8)) : 0, host ? 65536 : 0);
  }

  private static GpuNode renamed(GpuNode template, String name) {
    List<Gpu> gpus = new ArrayList<>();
    for (Gpu g : template.gpus()) {
      String parent = g.parentUuid() == null ? null : g.parentUuid().replace(template.name(), name);
      gpus.add(
          new Gpu(
              g.uuid().replace(template.name(), name),
              g.index(),
              g.model(),
              g.memoryMib(),
              g.computeMilli(),
              g.healthy(),
              parent,
              g.migProfile(),
              g.cordonReason()));
    }
    return new GpuNode(name, gpus, template.cpuMilli(), template.memoryMib());
  }

  static PodDemand randomPod(Random rnd, String id, List<GpuNode> nodes) {
    List<GpuDemand> containers = new ArrayList<>();
    int count = rnd.nextInt(4) == 0 ? 2 + rnd.nextInt(2) : 1;
    for (int c = 0; c < count; c++) {
      String name = "c" + c;
      int kind = rnd.nextInt(10);
      if (kind < 2) {
        long mem = rnd.nextInt(3) == 0 ? 1024L * (1 + rnd.nextInt(100)) : 0;
        containers.add(GpuDemand.whole(name, 1 + rnd.nextInt(kind == 0 ? 3 : 1), mem));
      } else {
        int milli = rnd.nextBoolean() ? 50 * (1 + rnd.nextInt(19)) : 1 + rnd.nextInt(999);
        long mem = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(50_000) : 0;
        int limit = rnd.nextInt(3) == 0 ? milli + rnd.nextInt(1001 - milli) : 0;
        containers.add(new GpuDemand(name, milli, mem, limit));
      }
    }
    Set<String> models = new HashSet<>();
    if (rnd.nextInt(5) == 0) {
      models.add(rnd.nextBoolean() ? "H100" : "a100");
      if (rnd.nextBoolean()) {
        models.add("L4");
      }
    }
    List<String> uuids = new ArrayList<>();
    for (GpuNode n : nodes) {
      for (Gpu g : n.gpus()) {
        uuids.add(g.uuid());
      }
    }
    Set<String> pinned = new HashSet<>();
    Set<String> excluded = new HashSet<>();
    if (!uuids.isEmpty() && rnd.nextInt(8) == 0) {
      for (int i = 0, k = 1 + rnd.nextInt(4); i < k; i++) {
        pinned.add(uuids.get(rnd.nextInt(uuids.size())));
      }
    }
    if (!uuids.isEmpty() && rnd.nextInt(8) == 0) {
      for (int i = 0, k = 1 + rnd.nextInt(6); i < k; i++) {
        excluded.add(uuids.get(rnd.nextInt(uuids.size())));
      }
    }
    long cpu = rnd.nextInt(3) == 0 ? 500L * (1 + rnd.nextInt(20)) : 0;
    long mem = rnd.nextInt(3) == 0 ? 1024L * (1 + rnd.nextInt(40)) : 0;
    return new PodDemand("ns/" + id, id, containers, models, pinned, excluded, cpu, mem);
  }

  /** Node names in random order, some twice, some unknown to the ledger. */
  private static List<String> randomNames(Random rnd, List<GpuNode> nodes) {
    List<String> names = new ArrayList<>();
    for (GpuNode n : nodes) {
      if (rnd.nextInt(6) != 0) {
        names.add(n.name());
      }
    }
    java.util.Collections.shuffle(names, rnd);
    if (!names.isEmpty() && rnd.nextInt(5) == 0) {
      names.add(rnd.nextInt(names.size()), names.get(rnd.nextInt(names.size())));
    }
    if (rnd.nextInt(5) == 0) {
      names.add(rnd.nextInt(names.size() + 1), "ghost-" + rnd.nextInt(2));
    }
    return names;
  }
}
