package io.sharegpu.extender.cluster;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.OverCommitException;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's picture of the cluster: a core {@link Ledger} fed by informers on Nodes, GPUNodes
 * and Pods (bound pods' assignment annotations), plus in-flight reservations.
 *
 * <p>The ledger is not thread-safe; every access goes through {@link #withLedger} (one lock). A
 * node is in the ledger while both its Node and its GPUNode exist. A pod holds GPUs while it has
 * {@code spec.nodeName} and assignment annotations and has not completed; a pod being deleted holds
 * them (TERMINATING) until it is gone. Reservations made by filter/prioritize expire after the
 * configured TTL unless a bind takes them over.
 */
public final class ClusterView implements AutoCloseable {

  private final AtomicLong roomVersion = new AtomicLong();

  private static final Logger LOG = LoggerFactory.getLogger(ClusterView.class);

  /** Page size of the informers' lists. */
  static final long LIST_PAGE = 500;

  private final @Nullable KubernetesClient client;
  private final ReentrantLock lock = new ReentrantLock();
  private final Ledger ledger = new Ledger();
  private final Placement placement;
  private final PlacementPolicy policy;
  private final Cache<String, Boolean> observedPods =
      Caffeine.newBuilder().maximumSize(200_000).build();
  private final Map<String, GpuNode> gpuNodes = new ConcurrentHashMap<>();
  private final Set<String> nodes = ConcurrentHashMap.newKeySet();
  private final Map<String, Pod> assignedPods = new ConcurrentHashMap<>();
  private final Set<String> binding = ConcurrentHashMap.newKeySet();
  private final Nominations nominations = new Nominations();
  private final PreemptedPods preempted = new PreemptedPods();
  private final Cache<String, Allocation> reservations;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  // The largest GPU memory of each node in the ledger, and how many nodes have each value: the
  // request path reads the cluster's largest GPU without walking every GPU. Guarded by lock.
  private final Map<String, Long> nodeLargestMemory = new HashMap<>();
  private final TreeMap<Long, Integer> largestMemoryCounts = new TreeMap<>();
  private volatile long largestMemoryMib;
  private volatile @Nullable SharedIndexInformer<Pod> pods;
  private volatile @Nullable SharedIndexInformer<GPUNode> gpuNodeInformer;
  private volatile boolean ready;
  private volatile @Nullable String notReadyReason = "informers not started";
  private final AtomicLong expiredReservations = new AtomicLong();
  private volatile @Nullable Duration rebuildTime;

  /**
   * Creates a view.
   *
   * @param client the API client; null for a view fed only by tests
   * @param policy the placement policy
   * @param reservationTtl how long an unbound reservation holds GPUs
   */
  public ClusterView(
      @Nullable KubernetesClient client, PlacementPolicy policy, Duration reservationTtl) {
    this.client = client;
    this.policy = policy;
    this.placement = new Placement(ledger, policy);
    this.reservations =
        Caffeine.newBuilder()
            .expireAfterWrite(reservationTtl.toNanos(), TimeUnit.NANOSECONDS)
            .scheduler(Scheduler.systemScheduler())
            .removalListener(
                (String uid, Allocation a, RemovalCause cause) -> {
                  if (cause == RemovalCause.EXPIRED && uid != null) {
                    expire(uid);
                  }
                })
            .build();
  }

  /**
   * Starts the informers; {@link #isReady()} turns true once all synced and the ledger rebuilt.
   *
   * <p>The informers list in pages of {@value #LIST_PAGE} (one page of full objects in memory at a
   * time, as kube-scheduler's own informers do) and keep reduced copies ({@link CachedObjects}),
   * without fabric8's by-namespace index (nothing looks objects up by namespace). Once every
   * informer has synced, the ledger is rebuilt from the stores' copies before the view reports
   * ready: fabric8 delivers the initial list's events to the handlers asynchronously, so when
   * {@code hasSynced} turns true the handlers may not have seen every object yet.
   */
  public void start() {
    KubernetesClient c = Objects.requireNonNull(client, "no client");
    long startedNanos = System.nanoTime();
    notReadyReason = "waiting for the Node, GPUNode and Pod informers to sync";
    SharedIndexInformer<Node> nodeInformer =
        c.nodes()
            .withLimit(LIST_PAGE)
            .runnableInformer(0)
            .itemStore(new ReducedItemStore<>(CachedObjects::node))
            .removeNamespaceIndex();
    SharedIndexInformer<GPUNode> gpuInformer =
        c.resources(GPUNode.class)
            .withLimit(LIST_PAGE)
            .runnableInformer(0)
            .itemStore(new ReducedItemStore<>(CachedObjects::gpuNode))
            .removeNamespaceIndex();
    SharedIndexInformer<Pod> podInformer =
        c.pods()
            .inAnyNamespace()
            .withLimit(LIST_PAGE)
            .runnableInformer(0)
            .itemStore(new ReducedItemStore<>(CachedObjects::pod))
            .removeNamespaceIndex();
    informers.add(nodeInformer);
    informers.add(gpuInformer);
    informers.add(podInformer);
    pods = podInformer;
    gpuNodeInformer = gpuInformer;
    nodeInformer.addEventHandler(handler(this::onNode, this::onNodeDelete)).run();
    gpuInformer.addEventHandler(handler(this::onGpuNode, this::onGpuNodeDelete)).run();
    podInformer.addEventHandler(handler(this::onPod, this::onPodDelete)).run();
    while (!informers.stream().allMatch(SharedIndexInformer::hasSynced)) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    // Apply every cached object now (events for them may still be queued for the handlers), pods
    // last, so that every pod's node is known; applying an object twice changes nothing. Each is
    // read again right before it is applied, so an object deleted or changed by a watch event
    // meanwhile is not brought back in an older state.
    replay(nodeInformer, this::onNode);
    replay(gpuInformer, this::onGpuNode);
    replay(podInformer, this::onPod);
    Duration took = Duration.ofNanos(System.nanoTime() - startedNanos);
    rebuildTime = took;
    ready = true;
    notReadyReason = null;
    LOG.info(
        "cluster view ready: {} GPU nodes, {} allocations, ledger rebuilt in {} ms",
        ledger.nodes().size(),
        withLedger(l -> l.allocations().size()),
        took.toMillis());
  }

  private static <T> void replay(SharedIndexInformer<T> informer, Consumer<T> apply) {
    for (String key : informer.getStore().listKeys()) {
      T current = informer.getStore().getByKey(key);
      if (current != null) {
        safely(apply, current);
      }
    }
  }

  /**
   * True when the pod informer has seen every pod of {@code listed} (a fresh list from the API
   * server) at its listed resourceVersion or later: nothing another replica bound before that list
   * is missing from the ledger. A bind leader checks this before its first bind. Without informers
   * (tests that feed the view directly) it is true.
   */
  public boolean podsSeenAsOf(List<Pod> listed) {
    SharedIndexInformer<Pod> informer = pods;
    if (informer == null) {
      return true;
    }
    for (Pod p : listed) {
      Pod cached = informer.getStore().get(p);
      if (cached == null) {
        return false;
      }
      if (newer(p.getMetadata().getResourceVersion(), cached.getMetadata().getResourceVersion())) {
        return false;
      }
    }
    return true;
  }

  /** True when resourceVersion {@code a} is known to be newer than {@code b}. */
  private static boolean newer(@Nullable String a, @Nullable String b) {
    if (a == null || b == null || a.equals(b)) {
      return false;
    }
    try {
      return Long.parseLong(a) > Long.parseLong(b);
    } catch (NumberFormatException e) {
      return true;
    }
  }

  /** True once the ledger has been rebuilt from the cluster. */
  public boolean isReady() {
    return ready;
  }

  /**
   * How long the last {@link #start()} took from starting the informers to a rebuilt ledger (the
   * informers' initial lists and the replay of every cached object); empty until the view is ready
   * through {@link #start()}.
   */
  public Optional<Duration> ledgerRebuildTime() {
    return Optional.ofNullable(rebuildTime);
  }

  /** Why the view is not ready yet, or null when it is. */
  public @Nullable String notReadyReason() {
    return notReadyReason;
  }

  /** Marks the view ready without informers (tests that feed it directly). */
  public void markReady() {
    ready = true;
    notReadyReason = null;
  }

  /**
   * Shows a pod's demand to the policy once per pod UID: online policies (such as {@code sharegpu})
   * learn the workload from the pods that have arrived.
   */
  public void observe(PodDemand pod) {
    if (observedPods.asMap().putIfAbsent(pod.podUid(), Boolean.TRUE) == null) {
      lock.lock();
      try {
        policy.observe(pod);
      } finally {
        lock.unlock();
      }
    }
  }

  /** Runs {@code f} under the ledger lock. */
  public <T> T withLedger(Function<Ledger, T> f) {
    lock.lock();
    try {
      return f.apply(ledger);
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code f} with the placement engine under the ledger lock. */
  public <T> T withPlacement(Function<Placement, T> f) {
    lock.lock();
    try {
      return f.apply(placement);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code f} with the placement engine and the ledger under the ledger lock (one consistent
   * view for a decision and the facts it is reported with).
   */
  public <T> T withPlacementAndLedger(BiFunction<Placement, Ledger, T> f) {
    lock.lock();
    try {
      return f.apply(placement, ledger);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns the bound pods that hold GPUs on each of {@code nodes} (reduced copies, read only), for
   * preemption: their priorities, labels and start times.
   */
  public Map<String, List<Pod>> assignedPodsOn(Collection<String> nodes) {
    Set<String> wanted = new HashSet<>(nodes);
    Map<String, List<Pod>> out = new HashMap<>();
    for (Pod p : assignedPods.values()) {
      String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
      if (node != null && wanted.contains(node)) {
        out.computeIfAbsent(node, n -> new ArrayList<>()).add(p);
      }
    }
    return out;
  }

  /** How many GPU pods kube-scheduler evicted for preemption since the extender started. */
  public long preemptedPods() {
    return preempted.evicted();
  }

  /** The GPU pods kube-scheduler nominated to nodes after preempting for them. */
  public Nominations nominations() {
    return nominations;
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

  /**
   * Waits up to {@code max} for the ledger to change from {@code version} (an informer event that
   * released or took GPUs); true if it changed.
   */
  public boolean awaitLedgerChange(long version, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
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
  }

  /** Returns the largest GPU memory of the cluster in MiB, 0 without GPUs. */
  public long largestGpuMemoryMib() {
    return largestMemoryMib;
  }

  /**
   * Returns the pod {@code namespace/name} from the pod informer's cache, empty without informers
   * or when the informer has not seen it. The object is shared with the informer: read only.
   */
  public Optional<Pod> cachedPod(String namespace, String name) {
    SharedIndexInformer<Pod> informer = pods;
    if (informer == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(informer.getStore().getByKey(namespace + "/" + name));
  }

  private void putLedgerNode(GpuNode node) {
    ledger.putNode(node);
    untrackLargest(node.name());
    long largest = node.gpus().stream().mapToLong(Gpu::memoryMib).max().orElse(0);
    nodeLargestMemory.put(node.name(), largest);
    largestMemoryCounts.merge(largest, 1, Integer::sum);
    largestMemoryMib = largestMemoryCounts.isEmpty() ? 0 : largestMemoryCounts.lastKey();
  }

  private void removeLedgerNode(String name) {
    ledger.removeNode(name);
    untrackLargest(name);
    largestMemoryMib = largestMemoryCounts.isEmpty() ? 0 : largestMemoryCounts.lastKey();
  }

  private void untrackLargest(String name) {
    Long old = nodeLargestMemory.remove(name);
    if (old != null) {
      largestMemoryCounts.computeIfPresent(old, (k, n) -> n == 1 ? null : n - 1);
    }
  }

  // ---- reservations and binds ------------------------------------------------------------------

  /**
   * Drops the pod's own unbound reservation so it does not compete with itself; does nothing while
   * a bind for it is in flight or when it holds a bound allocation.
   */
  public void dropOwnReservation(String podUid) {
    lock.lock();
    try {
      if (binding.contains(podUid)) {
        return;
      }
      Optional<Allocation> a = ledger.allocation(podUid);
      if (a.isPresent() && a.get().state() == AllocationState.RESERVED) {
        ledger.release(podUid);
        reservations.invalidate(podUid);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Reserves the policy's best grant for {@code pod} on {@code node} until a bind takes it or the
   * TTL passes. Returns the reservation, empty if it does not fit (or the pod holds GPUs already).
   */
  public Optional<Allocation> reserve(PodDemand pod, String node) {
    lock.lock();
    try {
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
        reservations.invalidate(pod.podUid());
        return Optional.empty();
      }
      ledger.commit(chosen.get());
      reservations.put(pod.podUid(), chosen.get());
      return chosen;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Starts a bind: marks the pod as binding (so no expiry or informer event releases what the bind
   * reserves) and drops any reservation it held.
   *
   * @return empty when the bind may proceed; otherwise why not (the pod already holds bound GPUs,
   *     or another bind of the same pod has not ended yet)
   */
  public Optional<String> beginBind(String podUid) {
    lock.lock();
    try {
      if (binding.contains(podUid)) {
        return Optional.of("another bind of this pod is in progress");
      }
      Optional<Allocation> held = ledger.allocation(podUid);
      if (held.isPresent() && held.get().state() != AllocationState.RESERVED) {
        return Optional.of("it already holds GPUs on " + held.get().node());
      }
      binding.add(podUid);
      reservations.invalidate(podUid);
      if (held.isPresent()) {
        ledger.release(podUid);
      }
      return Optional.empty();
    } finally {
      lock.unlock();
    }
  }

  /** Chooses and commits (RESERVED) the grant for a bind on {@code node}; empty if none fits. */
  public Optional<Allocation> reserveForBind(PodDemand pod, String node) {
    lock.lock();
    try {
      Optional<Allocation> chosen = placement.choose(pod, node);
      chosen.ifPresent(ledger::commit);
      return chosen;
    } finally {
      lock.unlock();
    }
  }

  /** Ends a bind: success marks the allocation BOUND, failure releases it. */
  public void endBind(String podUid, boolean success) {
    lock.lock();
    try {
      if (success) {
        if (ledger.allocation(podUid).isPresent()) {
          ledger.setState(podUid, AllocationState.BOUND);
        }
      } else {
        ledger.release(podUid);
      }
      binding.remove(podUid);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends a bind whose outcome is unknown (the Binding request failed in a way that may have
   * succeeded): the allocation stays held as a reservation until the pod informer shows the pod
   * bound (it then becomes BOUND) or the TTL passes.
   */
  public void endBindUncertain(String podUid) {
    lock.lock();
    try {
      binding.remove(podUid);
      ledger.allocation(podUid).ifPresent(a -> reservations.put(podUid, a));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Number of reservations that expired without a bind and released their GPUs since the view was
   * created.
   */
  public long expiredReservations() {
    return expiredReservations.get();
  }

  /** Number of reservations waiting for a bind (approximate). */
  public long pendingReservations() {
    reservations.cleanUp();
    return reservations.estimatedSize();
  }

  private void expire(String uid) {
    lock.lock();
    try {
      if (binding.contains(uid)) {
        return;
      }
      Optional<Allocation> a = ledger.allocation(uid);
      if (a.isPresent() && a.get().state() == AllocationState.RESERVED) {
        ledger.release(uid);
        expiredReservations.incrementAndGet();
        LOG.debug("reservation of {} on {} expired", a.get().podKey(), a.get().node());
      }
    } finally {
      lock.unlock();
    }
  }

  // ---- informer events -------------------------------------------------------------------------

  public void onNode(Node node) {
    String name = node.getMetadata().getName();
    if (nodes.add(name)) {
      GpuNode g = gpuNodes.get(name);
      if (g != null) {
        putNode(g);
        roomVersion.incrementAndGet();
      }
    }
  }

  public void onNodeDelete(Node node) {
    String name = node.getMetadata().getName();
    nodes.remove(name);
    lock.lock();
    try {
      removeLedgerNode(name);
    } finally {
      lock.unlock();
    }
  }

  public void onGpuNode(GPUNode g) {
    GpuNode node = toGpuNode(g);
    GpuNode before = gpuNodes.put(node.name(), node);
    if (nodes.contains(node.name())) {
      if (node.equals(before) && withLedger(l -> l.nodeSlot(node.name()) >= 0)) {
        return; // a heartbeat or an allocation summary: nothing placement reads changed
      }
      putNode(node);
      if (!node.equals(before)) {
        roomVersion.incrementAndGet(); // GPUs added, healthy again, uncordoned, repartitioned
      }
    }
  }

  /**
   * Returns the GPUNode {@code name} from the GPUNode informer's cache (a reduced copy, read only),
   * empty without informers or when it has none.
   */
  public Optional<GPUNode> cachedGpuNode(String name) {
    SharedIndexInformer<GPUNode> informer = gpuNodeInformer;
    if (informer == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(informer.getStore().getByKey(name));
  }

  public void onGpuNodeDelete(GPUNode g) {
    String name = g.getMetadata().getName();
    gpuNodes.remove(name);
    lock.lock();
    try {
      removeLedgerNode(name);
    } finally {
      lock.unlock();
    }
  }

  private void putNode(GpuNode node) {
    lock.lock();
    try {
      putLedgerNode(node);
    } finally {
      lock.unlock();
    }
    for (Pod p : assignedPods.values()) {
      if (node.name().equals(p.getSpec().getNodeName())) {
        onPod(p);
      }
    }
  }

  /**
   * Converts a GPUNode's status to core's node (MIG instances included), with the GPUs its {@code
   * spec.cordonedGpus} lists cordoned: a MIG instance is cordoned when it or its parent GPU is
   * listed (a card to be replaced takes its instances with it).
   */
  public static GpuNode toGpuNode(GPUNode g) {
    Map<String, String> cordons = cordons(g);
    List<Gpu> gpus = new ArrayList<>();
    if (g.getStatus() != null) {
      for (GpuStatus s : g.getStatus().getGpus()) {
        if (s.getUuid() == null || s.getUuid().isBlank()) {
          continue;
        }
        int compute = s.getComputeMilli() <= 0 ? 1000 : Math.min(1000, s.getComputeMilli());
        gpus.add(
            new Gpu(
                s.getUuid(),
                Math.max(0, s.getIndex()),
                s.getModel() == null ? "unknown" : s.getModel(),
                Math.max(0, s.getMemoryMiB()),
                compute,
                s.isHealthy(),
                s.getParentUuid(),
                s.getMigProfile(),
                cordons.isEmpty() ? null : cordonReason(cordons, s)));
      }
    }
    return new GpuNode(g.getMetadata().getName(), gpus, 0, 0);
  }

  /** UUID → reason ("" without one) of the GPUs the spec cordons; empty (shared) when none. */
  private static Map<String, String> cordons(GPUNode g) {
    GPUNodeSpec spec = g.getSpec();
    if (spec == null || spec.getCordonedGpus() == null || spec.getCordonedGpus().isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new HashMap<>();
    for (GpuCordon c : spec.getCordonedGpus()) {
      if (c != null && c.getUuid() != null && !c.getUuid().isBlank()) {
        out.putIfAbsent(c.getUuid().strip(), c.getReason() == null ? "" : c.getReason());
      }
    }
    return out;
  }

  private static @Nullable String cordonReason(Map<String, String> cordons, GpuStatus s) {
    String own = cordons.get(s.getUuid());
    if (own != null || s.getParentUuid() == null) {
      return own;
    }
    return cordons.get(s.getParentUuid());
  }

  public void onPod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    if (nominations.onPod(pod)) {
      roomVersion.incrementAndGet(); // the room a nominated pod held is open to others again
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      assignedPods.remove(uid);
      releaseUnlessBinding(uid);
      return;
    }
    String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    if (nodeName == null
        || nodeName.isEmpty()
        || annotations == null
        || !annotations.containsKey(ShareGpuAnnotations.ASSIGNED_GPUS)) {
      return;
    }
    if (!(PodGpuRequestParser.parse(pod) instanceof ParsedRequest.Valid valid)) {
      return;
    }
    PodGpuRequest request = valid.request();
    Optional<PodAssignment> assignment =
        AssignmentAnnotations.decode(nodeName, annotations, request.containerNames());
    if (assignment.isEmpty()) {
      LOG.warn("pod {} has unreadable assignment annotations", DemandMapper.podKey(pod));
      return;
    }
    assignedPods.put(uid, retained(pod));
    preempted.onPod(uid, pod);
    AllocationState state =
        pod.getMetadata().getDeletionTimestamp() != null
            ? AllocationState.TERMINATING
            : AllocationState.BOUND;
    lock.lock();
    try {
      GpuNode node = gpuNodes.get(nodeName);
      if (node == null || !nodes.contains(nodeName)) {
        return; // applied when the node appears
      }
      Optional<Allocation> held = ledger.allocation(uid);
      Set<String> uuids = new HashSet<>(assignment.get().gpuUuids());
      if (held.isPresent()
          && held.get().node().equals(nodeName)
          && held.get().uuids().equals(uuids)) {
        if (held.get().state() != state) {
          ledger.setState(uid, state);
        }
        reservations.invalidate(uid);
        return;
      }
      if (held.isPresent()) {
        ledger.release(uid);
      }
      Optional<Allocation> a =
          DemandMapper.fromAssignment(
              DemandMapper.podKey(pod), uid, request, assignment.get(), node, state);
      if (a.isEmpty()) {
        LOG.warn(
            "pod {} names GPUs {} that node {} does not have",
            DemandMapper.podKey(pod),
            uuids,
            nodeName);
        return;
      }
      commitEvictingReservations(a.get());
      reservations.invalidate(uid);
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
          reservations.invalidate(r.podUid());
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
   * The copy of {@code pod} to keep: the pod informer's own copy when it has this version (no
   * second copy), else a reduced copy.
   */
  private Pod retained(Pod pod) {
    SharedIndexInformer<Pod> informer = pods;
    if (informer != null) {
      Pod cached = informer.getStore().get(pod);
      if (cached == pod
          || (cached != null
              && Objects.equals(cached.getMetadata().getUid(), pod.getMetadata().getUid())
              && Objects.equals(
                  cached.getMetadata().getResourceVersion(),
                  pod.getMetadata().getResourceVersion()))) {
        return cached;
      }
    }
    return CachedObjects.pod(pod);
  }

  public void onPodDelete(Pod pod) {
    String uid = pod.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    if (nominations.forget(uid)) {
      roomVersion.incrementAndGet();
    }
    preempted.onDelete(uid, pod, assignedPods.containsKey(uid));
    assignedPods.remove(uid);
    releaseUnlessBinding(uid);
  }

  private void releaseUnlessBinding(String uid) {
    lock.lock();
    try {
      reservations.invalidate(uid);
      if (!binding.contains(uid) && ledger.allocation(uid).isPresent()) {
        ledger.release(uid);
        roomVersion.incrementAndGet();
      }
    } finally {
      lock.unlock();
    }
  }

  private static <T> ResourceEventHandler<T> handler(Consumer<T> upsert, Consumer<T> delete) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        safely(upsert, obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        safely(upsert, newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        safely(delete, obj);
      }
    };
  }

  private static <T> void safely(Consumer<T> f, T obj) {
    try {
      f.accept(obj);
    } catch (RuntimeException e) {
      LOG.error("informer event failed", e);
    }
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
    reservations.invalidateAll();
  }
}
