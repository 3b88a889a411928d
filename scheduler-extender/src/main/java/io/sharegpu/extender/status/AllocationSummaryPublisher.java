package io.sharegpu.extender.status;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each GPUNode's {@code status.allocation} ({@link AllocationSummary}: FREE and CORDONED in
 * {@code kubectl get gpunodes}) from the ledger, off the verbs' path.
 *
 * <p>A loop on its own thread, every {@link #PASS_INTERVAL}: when this replica holds the bind Lease
 * and the ledger changed, it takes the ledger lock once and summarises only the nodes whose usage
 * changed since it last looked ({@link NodeUsage#generation}, microseconds for a few nodes); a node
 * whose summary differs from what its GPUNode shows is marked dirty. Then, without the lock, it
 * patches dirty nodes: a JSON merge patch of {@code status.allocation} alone on the status
 * subresource (the node agent's fields and the spec are not touched).
 *
 * <p>Never a write storm: the dirty set is keyed by node (a node changing a thousand times between
 * writes is written once, with its latest summary: at most one entry per node), a node is written
 * at most once per {@code minInterval}, and at most {@code maxWritesPerPass} writes go out per pass
 * (with 5,000 nodes all changing, 5,000 writes spread over 5,000 / max passes). Every {@link
 * #RESYNC} passes all known summaries are compared again with the GPUNodes, so a summary someone
 * else removed is put back.
 */
public final class AllocationSummaryPublisher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AllocationSummaryPublisher.class);
  private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

  static final Duration PASS_INTERVAL = Duration.ofSeconds(1);
  static final int RESYNC = 30;
  static final int CHUNK = 1000;

  private final SchedulingState state;
  private final ClusterFeed feed;
  private final KubernetesClient client;
  private final BooleanSupplier leader;
  private final LongSupplier nanoClock;
  private final long minIntervalNanos;
  private final int maxWritesPerPass;
  private final Counter written;
  private final Counter failed;
  private final ScheduledExecutorService loop =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "gpunode-allocation");
            t.setDaemon(true);
            return t;
          });

  // all guarded by the loop's single thread
  private final Map<String, AllocationSummary> desired = new HashMap<>();
  private final Map<String, NodeUsage> seenUsage = new HashMap<>();
  private final Map<NodeUsage, Long> seenGeneration = new IdentityHashMap<>();
  private final Set<String> dirty = new LinkedHashSet<>();
  private final Map<String, Long> lastWrite = new HashMap<>();
  private long seenLedgerVersion = -1;
  private int passes;

  /**
   * Creates the publisher.
   *
   * @param leader true while this replica holds the bind Lease (only that one writes)
   * @param minInterval least time between two writes of one node
   * @param maxWritesPerPass most writes in one pass
   * @param nanoClock {@link System#nanoTime} (tests pass their own)
   */
  public AllocationSummaryPublisher(
      SchedulingState state,
      ClusterFeed feed,
      KubernetesClient client,
      BooleanSupplier leader,
      Duration minInterval,
      int maxWritesPerPass,
      MeterRegistry registry,
      LongSupplier nanoClock) {
    this.state = state;
    this.feed = feed;
    this.client = client;
    this.leader = leader;
    this.minIntervalNanos = minInterval.toNanos();
    this.maxWritesPerPass = maxWritesPerPass;
    this.nanoClock = nanoClock;
    this.written =
        Counter.builder("sharegpu.gpunode.allocation.writes")
            .description("GPUNode status.allocation patches")
            .tag("outcome", "written")
            .register(registry);
    this.failed =
        Counter.builder("sharegpu.gpunode.allocation.writes")
            .description("GPUNode status.allocation patches")
            .tag("outcome", "failed")
            .register(registry);
  }

  /** Starts the loop. */
  public void start() {
    loop.scheduleWithFixedDelay(
        this::safePass, PASS_INTERVAL.toMillis(), PASS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void safePass() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      log.warn("writing GPUNode allocation summaries failed", e);
    }
  }

  /** One pass; returns the number of patches sent. */
  int runOnce() {
    if (!state.isReady() || !leader.getAsBoolean()) {
      // not the writer: forget, so that taking over starts from the GPUNodes as they are
      seenUsage.clear();
      seenGeneration.clear();
      desired.clear();
      dirty.clear();
      seenLedgerVersion = -1;
      return 0;
    }
    Map<String, AllocationSummary> changed = summariseChanges();
    boolean resync = ++passes % RESYNC == 0;
    for (Map.Entry<String, AllocationSummary> e : (resync ? desired : changed).entrySet()) {
      if (!e.getValue().equals(published(e.getKey()))) {
        dirty.add(e.getKey());
      }
    }
    return writeDirty();
  }

  /**
   * The summaries of the nodes whose usage changed since the last pass. The ledger lock is taken
   * per {@link #CHUNK} nodes, so that the verbs never wait for more than a chunk (a full pass over
   * 5,000 nodes of 8 GPUs took 3 to 7 ms on a busy 2-core machine; a chunk a fifth of that).
   */
  private Map<String, AllocationSummary> summariseChanges() {
    long version = state.withLedger(Ledger::version);
    if (version == seenLedgerVersion) {
      return Map.of();
    }
    List<String> names = state.withLedger(l -> List.copyOf(l.nodeNames()));
    Map<String, AllocationSummary> out = new HashMap<>();
    for (int from = 0; from < names.size(); from += CHUNK) {
      List<String> chunk = names.subList(from, Math.min(names.size(), from + CHUNK));
      state.withLedger(
          l -> {
            for (String name : chunk) {
              NodeUsage u = l.nodeUsage(name);
              if (u == null) {
                continue;
              }
              NodeUsage before = seenUsage.put(name, u);
              Long gen = before == u ? seenGeneration.get(u) : null;
              if (gen != null && gen == u.generation()) {
                continue;
              }
              if (before != null && before != u) {
                seenGeneration.remove(before);
              }
              seenGeneration.put(u, u.generation());
              AllocationSummary s = AllocationSummary.of(l, name, u);
              out.put(name, s);
              desired.put(name, s);
            }
            return null;
          });
    }
    // changes made during the scan moved the version again: the next pass looks once more
    seenLedgerVersion = version;
    if (seenUsage.size() > names.size()) {
      Set<String> known = new HashSet<>(names);
      for (Iterator<Map.Entry<String, NodeUsage>> it = seenUsage.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<String, NodeUsage> e = it.next();
        if (!known.contains(e.getKey())) {
          seenGeneration.remove(e.getValue());
          desired.remove(e.getKey());
          dirty.remove(e.getKey());
          lastWrite.remove(e.getKey());
          it.remove();
        }
      }
    }
    return out;
  }

  private @Nullable AllocationSummary published(String node) {
    return feed.cachedGpuNode(node)
        .map(
            g -> g.getStatus() == null ? null : AllocationSummary.of(g.getStatus().getAllocation()))
        .orElse(null);
  }

  private int writeDirty() {
    int writes = 0;
    int failures = 0;
    @Nullable KubernetesClientException firstFailure = null;
    String firstFailed = "";
    long now = nanoClock.getAsLong();
    List<String> done = new ArrayList<>();
    for (String node : dirty) {
      if (writes == maxWritesPerPass) {
        break;
      }
      Long last = lastWrite.get(node);
      if (last != null && now - last < minIntervalNanos) {
        continue; // written lately: its latest summary goes out once the interval has passed
      }
      AllocationSummary s = desired.get(node);
      if (s == null || Objects.equals(s, published(node))) {
        done.add(node);
        continue;
      }
      lastWrite.put(node, now);
      writes++;
      try {
        // a named stub, so that fabric8 sends the PATCH alone (withName(..) GETs the object first)
        client.resource(named(node)).subresource("status").patch(MERGE, s.mergePatch());
        written.increment();
        done.add(node);
        log.debug("GPUNode {}: status.allocation {}", node, s);
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
          done.add(node); // the GPUNode is gone; the informer will drop the node
          continue;
        }
        failed.increment();
        failures++; // stays dirty: tried again after minInterval
        if (firstFailure == null) {
          firstFailure = e;
          firstFailed = node;
        }
      }
    }
    done.forEach(dirty::remove);
    if (firstFailure != null) {
      log.warn(
          "could not write status.allocation of {} GPUNode(s), e.g. {} (HTTP {}): {}",
          failures,
          firstFailed,
          firstFailure.getCode(),
          firstFailure.getStatus() != null
              ? firstFailure.getStatus().getMessage()
              : firstFailure.getMessage());
    }
    return writes;
  }

  @Override
  public void close() {
    loop.shutdownNow();
  }

  /** A GPUNode carrying only its name: the target of a patch. */
  private static GPUNode named(String node) {
    GPUNode g = new GPUNode();
    g.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(node).build());
    return g;
  }
}
