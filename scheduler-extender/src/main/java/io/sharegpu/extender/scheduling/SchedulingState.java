package io.sharegpu.extender.scheduling;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sharegpu.api.request.PodGpuRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.OverCommitException;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.NodeScores;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.mapping.PodDemands;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's scheduling state: core's {@link Ledger} and {@link Placement}, the reservations of
 * filter and prioritize, the binds in flight and the rooms held for nominated pods, behind one
 * lock. It offers one call per verb ({@link #filter}, {@link #prioritize}, {@link #beginBind}),
 * each of which takes the lock once, and the calls the informer feed makes when the cluster
 * changes.
 *
 * <p>Invariant: no GPU is ever over-committed. Every GPU a pod holds, reserved by a verb, held by a
 * bind in flight, bound, or terminating, is counted in the ledger; a decision and the grant it
 * makes happen under one hold of the lock, so two verbs never give the same room twice. A
 * reservation expires {@code reservationTtl} after it was made unless a bind takes it over; the
 * time comes from the {@link Clock} given here, and {@link #expireReservations} takes {@code now}
 * from its caller.
 */
public final class SchedulingState {

  private static final Logger LOG = LoggerFactory.getLogger(SchedulingState.class);

  /** How long filter waits for the ledger to change when a pod being deleted holds GPUs. */
  static final Duration TERMINATING_RECHECK = Duration.ofMillis(100);

  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock: the ledger, the placement engine over it, the reservations, the binds in
  // flight and the largest-memory index
  private final Ledger ledger = new Ledger();
  private final Placement placement;
  private final PlacementPolicy policy;
  private final Reservations reservations;
  private final Set<String> binding = new HashSet<>();
  private final Map<String, Long> nodeLargestMemory = new HashMap<>();
  private final TreeMap<Long, Integer> largestMemoryCounts = new TreeMap<>();

  private final Clock clock;
  private final Nominations nominations = new Nominations();
  private final Cache<String, Boolean> observedPods =
      Caffeine.newBuilder().maximumSize(200_000).build();
  private final Cache<String, Boolean> recentlyWaited =
      Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(Duration.ofSeconds(1)).build();
  private final AtomicLong roomVersion = new AtomicLong();
  private final AtomicLong expiredReservations = new AtomicLong();
  private volatile long largestMemoryMib;
  private volatile boolean ready;
  private volatile @Nullable String notReadyReason = "informers not started";

  /**
   * Creates an empty state, not ready.
   *
   * @param policy the placement policy
   * @param reservationTtl how long an unbound reservation holds GPUs
   * @param clock the time reservations are made at
   */
  public SchedulingState(PlacementPolicy policy, Duration reservationTtl, Clock clock) {
    this.policy = policy;
    this.placement = new Placement(ledger, policy);
    this.reservations = new Reservations(reservationTtl);
    this.clock = clock;
  }

  // ---- readiness ----

  /** True once the ledger has been rebuilt from the cluster. */
  public boolean isReady() {
    return ready;
  }

  /** Why the state is not ready yet, or null when it is. */
  public @Nullable String notReadyReason() {
    return notReadyReason;
  }

  /** Marks the ledger rebuilt: the verbs decide from now on. */
  public void markReady() {
    notReadyReason = null;
    ready = true;
  }

  /** Records why the ledger is not rebuilt yet (while it is not ready). */
  public void notReadyBecause(String reason) {
    if (!ready) {
      notReadyReason = reason;
    }
  }

  // ---- the verbs ----

  /**
   * Decides filter for a pod: which candidates have GPUs that fit it. The pod's own reservation is
   * dropped first (it never competes with itself); when exactly one node fits, the pod's grant
   * there is reserved (kube-scheduler skips prioritize and binds to that node).
   *
   * <p>When nothing fits and a pod being deleted holds GPUs on a candidate, the lock is let go for
   * up to {@link #TERMINATING_RECHECK} (100 ms) to let the informer feed see that pod gone, and the
   * pod is decided again (at most once a second per pod): kube-scheduler retries a waiting pod on
   * the event that deletes a pod, and its informer may see that delete before ours does.
   *
   * @param pod what the pod asks ({@link PodDemands#of})
   * @param priority the pod's {@code spec.priority}
   * @param names the candidate nodes
   */
  public FilterDecision filter(PodDemands.Outcome pod, int priority, List<String> names) {
    if (!ready) {
      return new FilterDecision.NotReady();
    }
    if (pod instanceof PodDemands.Invalid invalid) {
      return new FilterDecision.Invalid(invalid.message());
    }
    if (!(pod instanceof PodDemands.Demand d)) {
      return new FilterDecision.NoGpu();
    }
    Optional<String> tooBig = tooBig(d.request());
    if (tooBig.isPresent()) {
      return new FilterDecision.Invalid("invalid GPU request: " + tooBig.get());
    }
    PodDemand demand = d.demand();
    FilterPass pass;
    lock.lock();
    try {
      expireLocked(clock.instant());
      if (observedPods.asMap().putIfAbsent(demand.podUid(), Boolean.TRUE) == null) {
        // online policies (such as sharegpu) learn the workload from the pods that arrive
        policy.observe(demand);
      }
      dropOwnReservationLocked(demand.podUid());
      pass = FilterPass.evaluate(placement, ledger, nominations, demand, priority, names);
      if (!pass.waitForTerminating()
          || recentlyWaited.asMap().putIfAbsent(demand.podUid(), Boolean.TRUE) != null) {
        return decided(pass, demand);
      }
    } finally {
      lock.unlock();
    }
    if (!awaitLedgerChange(pass.ledgerVersion())) {
      return pass.decision(demand);
    }
    lock.lock();
    try {
      return decided(
          FilterPass.evaluate(placement, ledger, nominations, demand, priority, names), demand);
    } finally {
      lock.unlock();
    }
  }

  /** The filter decision; with one feasible node left, the pod's grant there is reserved. */
  private FilterDecision.Filtered decided(FilterPass pass, PodDemand demand) {
    if (pass.feasible().size() == 1) {
      // prioritize is skipped with one node left: this is the node the scheduler will bind to
      reserveLocked(demand, pass.feasible().get(0));
    }
    return pass.decision(demand);
  }

  /**
   * Scores the candidates for a pod (core's 0..100, in the order asked, each name once) and
   * reserves its grant on the best node; empty when the state is not ready or the pod asks for no
   * valid GPU request (every candidate then scores 0).
   */
  public Optional<NodeScores> prioritize(PodDemands.Outcome pod, List<String> names) {
    if (!ready || !(pod instanceof PodDemands.Demand d) || tooBig(d.request()).isPresent()) {
      return Optional.empty();
    }
    PodDemand demand = d.demand();
    lock.lock();
    try {
      expireLocked(clock.instant());
      dropOwnReservationLocked(demand.podUid());
      NodeScores scores = placement.prioritize(demand, names);
      String best = null;
      int bestScore = 0;
      for (int i = 0; i < scores.size(); i++) {
        if (scores.score(i) > bestScore) {
          best = scores.node(i);
          bestScore = scores.score(i);
        }
      }
      if (best != null) {
        reserveLocked(demand, best);
      }
      return Optional.of(scores);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Starts the bind of {@code pod} to {@code node}: refuses it while another bind of the pod is in
   * flight or when the pod holds bound GPUs; otherwise drops the pod's reservation, chooses its
   * GPUs on {@code node} from the current ledger and holds them for this bind. The returned ticket
   * releases them when closed unless {@link BindTicket#commit()} (or {@link
   * BindTicket#keepReserved()}) was called first:
   *
   * <pre>{@code
   * try (BindTicket ticket = state.beginBind(demand, node)) {
   *   ... create the Binding ...
   *   ticket.commit();
   * }
   * }</pre>
   *
   * If this call throws, nothing is held and no bind is left in flight.
   */
  public BindTicket beginBind(PodDemand pod, String node) {
    String uid = pod.podUid();
    lock.lock();
    try {
      expireLocked(clock.instant());
      if (binding.contains(uid)) {
        return BindTicket.refused(this, uid, "another bind of this pod is in progress");
      }
      Optional<Allocation> held = ledger.allocation(uid);
      if (held.isPresent() && held.get().state() != AllocationState.RESERVED) {
        return BindTicket.refused(this, uid, "it already holds GPUs on " + held.get().node());
      }
      binding.add(uid);
      try {
        reservations.remove(uid);
        if (held.isPresent()) {
          ledger.release(uid);
        }
        Optional<Allocation> chosen = placement.choose(pod, node);
        if (chosen.isEmpty()) {
          return BindTicket.noFit(this, uid, placement.explain(pod, node).reason());
        }
        ledger.commit(chosen.get());
        return BindTicket.holding(this, chosen.get());
      } catch (RuntimeException | Error e) {
        ledger.release(uid);
        binding.remove(uid);
        throw e;
      }
    } finally {
      lock.unlock();
    }
  }

  /** Ends a bind: success marks its allocation BOUND, failure releases it. */
  void endBind(String podUid, boolean success) {
    lock.lock();
    try {
      if (success) {
        if (ledger.allocation(podUid).isPresent()) {
          ledger.setState(podUid, AllocationState.BOUND);
        }
      } else {
        ledger.release(podUid);
      }
    } finally {
      binding.remove(podUid);
      lock.unlock();
    }
  }

  /**
   * Ends a bind whose outcome is unknown: its allocation stays held as a reservation until the
   * informer feed shows the pod bound (it then becomes BOUND) or the TTL passes.
   */
  void endBindUncertain(String podUid) {
    lock.lock();
    try {
      binding.remove(podUid);
      if (ledger.allocation(podUid).isPresent()) {
        reservations.put(podUid, clock.instant());
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns why the request cannot fit any GPU of the cluster (more memory than its largest GPU),
   * empty when it may fit or the cluster has no GPU yet. Reads no lock.
   */
  public Optional<String> tooBig(PodGpuRequest request) {
    long largest = largestMemoryMib;
    return largest > 0 ? PodGpuRequestParser.checkMemoryFits(request, largest) : Optional.empty();
  }

  // ---- reservations ----

  /**
   * Reserves the policy's best grant for {@code pod} on {@code node} until a bind takes it or the
   * TTL passes (filter and prioritize do this themselves). Returns the reservation, empty if it
   * does not fit, the pod holds GPUs already or a bind of it is in flight.
   */
  public Optional<Allocation> reserve(PodDemand pod, String node) {
    lock.lock();
    try {
      return reserveLocked(pod, node);
    } finally {
      lock.unlock();
    }
  }

  private Optional<Allocation> reserveLocked(PodDemand pod, String node) {
    if (binding.contains(pod.podUid())) {
      return Optional.empty();
    }
    Optional<Allocation> held = ledger.allocation(pod.podUid());
    if (held.isPresent()) {
      if (held.get().state() != AllocationState.RESERVED) {
        return Optional.empty();
      }
      ledger.release(pod.podUid());
    }
    Optional<Allocation> chosen = placement.choose(pod, node);
    if (chosen.isEmpty()) {
      reservations.remove(pod.podUid());
      return Optional.empty();
    }
    ledger.commit(chosen.get());
    reservations.put(pod.podUid(), clock.instant());
    return chosen;
  }

  private void dropOwnReservationLocked(String podUid) {
    if (binding.contains(podUid)) {
      return;
    }
    Optional<Allocation> a = ledger.allocation(podUid);
    if (a.isPresent() && a.get().state() == AllocationState.RESERVED) {
      ledger.release(podUid);
      reservations.remove(podUid);
    }
  }

  /**
   * Releases the reservations whose TTL has passed at {@code now} (the verbs do this too, with the
   * state's clock, before they decide). A reservation a bind has taken over does not expire.
   */
  public void expireReservations(Instant now) {
    lock.lock();
    try {
      expireLocked(now);
    } finally {
      lock.unlock();
    }
  }

  private void expireLocked(Instant now) {
    for (String uid : reservations.expired(now)) {
      if (binding.contains(uid)) {
        continue;
      }
      Optional<Allocation> a = ledger.allocation(uid);
      if (a.isPresent() && a.get().state() == AllocationState.RESERVED) {
        ledger.release(uid);
        expiredReservations.incrementAndGet();
        LOG.debug("reservation of {} on {} expired", a.get().podKey(), a.get().node());
      }
    }
  }

  /** How many reservations expired without a bind and released their GPUs so far. */
  public long expiredReservations() {
    return expiredReservations.get();
  }

  /** How many reservations wait for a bind. */
  public long pendingReservations() {
    lock.lock();
    try {
      return reservations.size();
    } finally {
      lock.unlock();
    }
  }

  // ---- what the informer feed tells ----

  /** Puts (or replaces) a GPU node: its Node and its GPUNode both exist. */
  public void putNode(GpuNode node) {
    lock.lock();
    try {
      ledger.putNode(node);
      untrackLargest(node.name());
      long largest = node.gpus().stream().mapToLong(Gpu::memoryMib).max().orElse(0);
      nodeLargestMemory.put(node.name(), largest);
      largestMemoryCounts.merge(largest, 1, Integer::sum);
      largestMemoryMib = largestMemoryCounts.isEmpty() ? 0 : largestMemoryCounts.lastKey();
    } finally {
      lock.unlock();
    }
  }

  /** Removes a GPU node (its Node or its GPUNode is gone). */
  public void removeNode(String name) {
    lock.lock();
    try {
      ledger.removeNode(name);
      untrackLargest(name);
      largestMemoryMib = largestMemoryCounts.isEmpty() ? 0 : largestMemoryCounts.lastKey();
    } finally {
      lock.unlock();
    }
  }

  private void untrackLargest(String name) {
    Long old = nodeLargestMemory.remove(name);
    if (old != null) {
      largestMemoryCounts.computeIfPresent(old, (k, n) -> n == 1 ? null : n - 1);
    }
  }

  /** True when {@code name} is a GPU node of the ledger. */
  public boolean hasNode(String name) {
    lock.lock();
    try {
      return ledger.nodeSlot(name) >= 0;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records what a pod bound to {@code node} holds, from its assignment annotations: the GPUs
   * {@code uuids} in {@code state} (BOUND, or TERMINATING while it is being deleted). A pod that
   * already holds exactly these GPUs (its bind, or an earlier event) only changes state; otherwise
   * what it held is replaced by {@code allocation} (built only then). Reservations are advisory: a
   * pod that is really bound takes its GPUs from them when it does not fit beside them.
   *
   * @return false when the allocation could not be built (a GPU it names is not on the node)
   */
  public boolean holdAssigned(
      String podUid,
      String node,
      Set<String> uuids,
      AllocationState state,
      Supplier<Optional<Allocation>> allocation) {
    lock.lock();
    try {
      if (ledger.nodeSlot(node) < 0) {
        return true; // applied when the node appears
      }
      Optional<Allocation> held = ledger.allocation(podUid);
      if (held.isPresent() && held.get().node().equals(node) && held.get().uuids().equals(uuids)) {
        if (held.get().state() != state) {
          ledger.setState(podUid, state);
        }
        reservations.remove(podUid);
        return true;
      }
      if (held.isPresent()) {
        ledger.release(podUid);
      }
      Optional<Allocation> a = allocation.get();
      if (a.isEmpty()) {
        return false;
      }
      commitEvictingReservations(a.get());
      reservations.remove(podUid);
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void commitEvictingReservations(Allocation a) {
    try {
      ledger.commit(a);
    } catch (OverCommitException e) {
      // Reservations are advisory: a pod that is really bound wins over them.
      for (Allocation r : List.copyOf(ledger.allocations(a.node()))) {
        if (r.state() == AllocationState.RESERVED && !binding.contains(r.podUid())) {
          ledger.release(r.podUid());
          reservations.remove(r.podUid());
        }
      }
      try {
        ledger.commit(a);
      } catch (OverCommitException again) {
        LOG.error(
            "bound pod {} on {} does not fit the ledger: {}",
            a.podKey(),
            a.node(),
            again.getMessage());
      }
    }
  }

  /**
   * Releases what a pod holds (it completed or is gone), unless a bind of it is in flight; the room
   * version moves when GPUs were released.
   */
  public void podGone(String podUid) {
    lock.lock();
    try {
      reservations.remove(podUid);
      if (!binding.contains(podUid) && ledger.allocation(podUid).isPresent()) {
        ledger.release(podUid);
        roomVersion.incrementAndGet();
      }
    } finally {
      lock.unlock();
    }
  }

  /** The GPU pods kube-scheduler nominated to nodes after preempting for them. */
  public Nominations nominations() {
    return nominations;
  }

  /** Records that GPUs may have become free (a node added or changed, a nomination let go). */
  public void roomOpened() {
    roomVersion.incrementAndGet();
  }

  /**
   * Returns a number that grows whenever GPUs may have become free: a pod's allocation released
   * (deleted, completed), a nominated pod's held room let go, a GPU node added or its GPUs changed.
   * Heartbeats and new allocations leave it alone. For {@link
   * io.sharegpu.extender.requeue.WaitingPods}.
   */
  public long roomVersion() {
    return roomVersion.get();
  }

  // ---- reads ----

  /** Runs {@code f} on the ledger under the lock; {@code f} must only read. */
  public <T> T withLedger(Function<Ledger, T> f) {
    lock.lock();
    try {
      return f.apply(ledger);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code f} with the placement engine and the ledger under the lock (one consistent view for
   * a decision and the facts it is reported with); {@code f} must not change the ledger.
   */
  public <T> T withPlacementAndLedger(BiFunction<Placement, Ledger, T> f) {
    lock.lock();
    try {
      return f.apply(placement, ledger);
    } finally {
      lock.unlock();
    }
  }

  /** Returns the largest GPU memory of the cluster in MiB, 0 without GPUs. */
  public long largestGpuMemoryMib() {
    return largestMemoryMib;
  }

  /**
   * Waits up to {@link #TERMINATING_RECHECK} for the ledger to change from {@code version} (an
   * informer event that released or took GPUs); true if it changed. Holds no lock while waiting.
   */
  private boolean awaitLedgerChange(long version) {
    long deadline = System.nanoTime() + TERMINATING_RECHECK.toNanos();
    try {
      while (true) {
        if (withLedger(Ledger::version) != version) {
          return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        Thread.sleep(Math.max(1, Math.min(2, TimeUnit.NANOSECONDS.toMillis(left))));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Forgets every reservation (at shutdown). */
  public void close() {
    lock.lock();
    try {
      reservations.clear();
    } finally {
      lock.unlock();
    }
  }
}
