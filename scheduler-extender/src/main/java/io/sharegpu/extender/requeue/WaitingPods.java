package io.sharegpu.extender.requeue;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pods that filter turned away for want of GPUs, and a loop that asks kube-scheduler to try them
 * again once GPUs that fit them are free.
 *
 * <p>kube-scheduler retries a waiting pod on cluster events it sees. Two ways that room appears go
 * unseen: a pod deleted with grace period 0 whose delete reaches kube-scheduler's informer before
 * ours (the retry is answered from a ledger that still holds the GPUs, and no later event comes),
 * and a GPUNode change (GPUs added, healthy again), which kube-scheduler does not watch. Either way
 * the pod would wait for the next unrelated event, or for kube-scheduler's flush of unschedulable
 * pods after 5 minutes. Here, whenever {@link SchedulingState#roomVersion()} moves, each waiting
 * pod is filtered again against every GPU node; a pod that now fits somewhere gets the annotation
 * {@link ShareGpuAnnotations#REQUEUED_AT}, an update that kube-scheduler answers with a new
 * attempt.
 *
 * <p>Bounded: at most {@link #MAX_WAITING} pods are remembered (for {@link #REMEMBER} each), at
 * most {@link #MAX_CHECKS_PER_PASS} are filtered per pass, and a pod is patched at most once per
 * rejection.
 */
public final class WaitingPods implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WaitingPods.class);

  static final int MAX_WAITING = 10_000;
  static final Duration REMEMBER = Duration.ofMinutes(30);
  static final int MAX_CHECKS_PER_PASS = 500;
  static final Duration PASS_INTERVAL = Duration.ofMillis(250);
  private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

  /** A pod turned away, and the room version at which it was. */
  record Waiting(String namespace, String name, PodDemand demand, long roomVersion) {}

  private final SchedulingState state;
  private final ClusterFeed feed;
  private final KubernetesClient client;
  private final Clock clock;
  private final Cache<String, Waiting> waiting =
      Caffeine.newBuilder().maximumSize(MAX_WAITING).expireAfterWrite(REMEMBER).build();
  private final Counter requeued;
  private final Counter failed;
  private final ScheduledExecutorService loop =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "waiting-pods");
            t.setDaemon(true);
            return t;
          });
  private long checkedAt = -1;

  public WaitingPods(
      SchedulingState state,
      ClusterFeed feed,
      KubernetesClient client,
      MeterRegistry registry,
      Clock clock) {
    this.state = state;
    this.feed = feed;
    this.client = client;
    this.clock = clock;
    this.requeued =
        Counter.builder("sharegpu.requeues")
            .description("Waiting pods asked to be tried again because GPUs that fit them freed up")
            .tag("outcome", "patched")
            .register(registry);
    this.failed =
        Counter.builder("sharegpu.requeues")
            .description("Waiting pods asked to be tried again because GPUs that fit them freed up")
            .tag("outcome", "failed")
            .register(registry);
  }

  /** Starts the loop that looks for room every {@link #PASS_INTERVAL}. */
  public void start() {
    loop.scheduleWithFixedDelay(
        this::runOnce, PASS_INTERVAL.toMillis(), PASS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Remembers a pod that filter turned away because no candidate had GPUs for it. */
  public void rejected(String namespace, String name, PodDemand demand) {
    waiting.put(demand.podUid(), new Waiting(namespace, name, demand, state.roomVersion()));
  }

  /** Forgets a pod that fits somewhere (or is gone). */
  public void forget(String podUid) {
    waiting.invalidate(podUid);
  }

  /** Returns the demands of the pods remembered as waiting (for the debug views), in no order. */
  public List<PodDemand> waitingDemands() {
    List<PodDemand> out = new ArrayList<>();
    for (Waiting w : waiting.asMap().values()) {
      out.add(w.demand());
    }
    return out;
  }

  /** Returns how many pods are remembered as waiting. */
  public long size() {
    waiting.cleanUp();
    return waiting.estimatedSize();
  }

  /**
   * One pass: when room appeared since the last one, asks for a retry of each pod that now fits.
   */
  void runOnce() {
    try {
      long room = state.roomVersion();
      if (room == checkedAt || waiting.asMap().isEmpty() || !state.isReady()) {
        checkedAt = room;
        return;
      }
      checkedAt = room;
      List<Waiting> due = new ArrayList<>();
      for (Waiting w : waiting.asMap().values()) {
        if (w.roomVersion() < room) {
          due.add(w);
          if (due.size() == MAX_CHECKS_PER_PASS) {
            checkedAt = -1; // more to look at: look again next pass
            break;
          }
        }
      }
      for (Waiting w : due) {
        if (fitsSomewhere(w.demand())) {
          requeue(w);
          waiting.invalidate(w.demand().podUid());
        } else {
          waiting
              .asMap()
              .computeIfPresent(
                  w.demand().podUid(),
                  (uid, old) ->
                      old.roomVersion() == w.roomVersion()
                          ? new Waiting(old.namespace(), old.name(), old.demand(), room)
                          : old);
        }
      }
    } catch (RuntimeException e) {
      log.warn("looking for room for waiting pods failed", e);
    }
  }

  private boolean fitsSomewhere(PodDemand demand) {
    return state.withPlacementAndLedger(
        (placement, ledger) -> !placement.filter(demand, ledger.nodeNames()).feasible().isEmpty());
  }

  private void requeue(Waiting w) {
    Optional<Pod> cached = feed.cachedPod(w.namespace(), w.name());
    if (cached.isPresent()
        && (!w.demand().podUid().equals(cached.get().getMetadata().getUid())
            || (cached.get().getSpec() != null && cached.get().getSpec().getNodeName() != null))) {
      return; // bound meanwhile, or another pod of the same name
    }
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    String patch =
        "{\"metadata\":{\"annotations\":{\""
            + ShareGpuAnnotations.REQUEUED_AT
            + "\":\""
            + now
            + "\"}}}";
    try {
      client.pods().inNamespace(w.namespace()).withName(w.name()).patch(MERGE, patch);
      requeued.increment();
      log.debug(
          "{}/{}: GPUs that fit it are free; asked kube-scheduler to retry it",
          w.namespace(),
          w.name());
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
        failed.increment();
        log.warn(
            "{}/{}: could not ask kube-scheduler to retry it (HTTP {}): {}",
            w.namespace(),
            w.name(),
            e.getCode(),
            e.getStatus() != null ? e.getStatus().getMessage() : e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    loop.shutdownNow();
  }
}
