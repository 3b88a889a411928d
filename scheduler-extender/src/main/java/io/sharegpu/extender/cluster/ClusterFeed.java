package io.sharegpu.extender.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.request.PodGpuRequest;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.preemption.NominationGuard.Nominee;
import io.sharegpu.extender.mapping.DemandMapper;
import io.sharegpu.extender.mapping.GpuNodeMapper;
import io.sharegpu.extender.mapping.PodDemands;
import io.sharegpu.extender.scheduling.SchedulingState;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informer feed: informers on Nodes, GPUNodes and Pods, whose events it turns into calls on the
 * {@link SchedulingState} (GPU nodes in and out, what bound pods hold, nominations), plus the
 * readiness replay that rebuilds the ledger from the informers' caches before the state reports
 * ready. A node is a GPU node while both its Node and its GPUNode exist. A pod holds GPUs while it
 * has {@code spec.nodeName} and assignment annotations and has not completed; a pod being deleted
 * holds them (TERMINATING) until it is gone. It also answers reads of the informers' caches (a pod,
 * a GPUNode, the bound GPU pods of some nodes). It takes no lock of its own: the state's lock
 * guards the ledger.
 */
public final class ClusterFeed implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterFeed.class);

  /** Page size of the informers' lists. */
  static final long LIST_PAGE = 500;

  private final @Nullable KubernetesClient client;
  private final SchedulingState state;
  private final Map<String, GpuNode> gpuNodes = new ConcurrentHashMap<>();
  private final Set<String> nodes = ConcurrentHashMap.newKeySet();
  private final Map<String, Pod> assignedPods = new ConcurrentHashMap<>();
  private final PreemptedPods preempted = new PreemptedPods();
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private volatile @Nullable SharedIndexInformer<Pod> pods;
  private volatile @Nullable SharedIndexInformer<GPUNode> gpuNodeInformer;
  private volatile @Nullable Duration rebuildTime;

  /**
   * Creates a feed.
   *
   * @param client the API client; null for a feed driven by tests through its event methods
   * @param state the scheduling state it feeds
   */
  public ClusterFeed(@Nullable KubernetesClient client, SchedulingState state) {
    this.client = client;
    this.state = state;
  }

  /**
   * Starts the informers; the state turns ready once all synced and the ledger was rebuilt.
   *
   * <p>The informers list in pages of {@value #LIST_PAGE} (one page of full objects in memory at a
   * time, as kube-scheduler's own informers do) and keep reduced copies ({@link CachedObjects}),
   * without fabric8's by-namespace index (nothing looks objects up by namespace). Once every
   * informer has synced, the ledger is rebuilt from the stores' copies before the state reports
   * ready: fabric8 delivers the initial list's events to the handlers asynchronously, so when
   * {@code hasSynced} turns true the handlers may not have seen every object yet.
   */
  public void start() {
    KubernetesClient c = Objects.requireNonNull(client, "no client");
    long startedNanos = System.nanoTime();
    state.notReadyBecause("waiting for the Node, GPUNode and Pod informers to sync");
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
    state.markReady();
    LOG.info(
        "cluster view ready: {} GPU nodes, {} allocations, ledger rebuilt in {} ms",
        state.withLedger(l -> l.nodes().size()),
        state.withLedger(l -> l.allocations().size()),
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
   * (tests that drive the feed directly) it is true.
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

  /**
   * How long the last {@link #start()} took from starting the informers to a rebuilt ledger (the
   * informers' initial lists and the replay of every cached object); empty until the state is ready
   * through {@link #start()}.
   */
  public Optional<Duration> ledgerRebuildTime() {
    return Optional.ofNullable(rebuildTime);
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

  // ---- informer events -------------------------------------------------------------------------

  public void onNode(Node node) {
    String name = node.getMetadata().getName();
    if (nodes.add(name)) {
      GpuNode g = gpuNodes.get(name);
      if (g != null) {
        putNode(g);
        state.roomOpened();
      }
    }
  }

  public void onNodeDelete(Node node) {
    String name = node.getMetadata().getName();
    nodes.remove(name);
    state.removeNode(name);
  }

  public void onGpuNode(GPUNode g) {
    GpuNode node = GpuNodeMapper.toGpuNode(g);
    GpuNode before = gpuNodes.put(node.name(), node);
    if (nodes.contains(node.name())) {
      if (node.equals(before) && state.hasNode(node.name())) {
        return; // a heartbeat or an allocation summary: nothing placement reads changed
      }
      putNode(node);
      if (!node.equals(before)) {
        state.roomOpened(); // GPUs added, healthy again, uncordoned, repartitioned
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
    state.removeNode(name);
  }

  private void putNode(GpuNode node) {
    state.putNode(node);
    for (Pod p : assignedPods.values()) {
      if (node.name().equals(p.getSpec().getNodeName())) {
        onPod(p);
      }
    }
  }

  public void onPod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    if (uid == null) {
      return;
    }
    PodDemands.Outcome demand = null;
    String nominated = nominatedNode(pod);
    boolean nominationLetGo;
    if (nominated != null && (demand = PodDemands.of(pod)) instanceof PodDemands.Demand d) {
      int priority = pod.getSpec().getPriority() == null ? 0 : pod.getSpec().getPriority();
      nominationLetGo =
          state.nominations().nominate(uid, nominated, new Nominee(d.demand(), priority));
    } else {
      nominationLetGo = state.nominations().forget(uid);
    }
    if (nominationLetGo) {
      state.roomOpened(); // the room a nominated pod held is open to others again
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      assignedPods.remove(uid);
      state.podGone(uid);
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
    if (demand == null) {
      demand = PodDemands.of(pod);
    }
    if (!(demand instanceof PodDemands.Demand valid)) {
      return;
    }
    PodGpuRequest request = valid.request();
    Optional<PodAssignment> assignment =
        AssignmentAnnotations.decode(nodeName, annotations, request.containerNames());
    if (assignment.isEmpty()) {
      LOG.warn("pod {} has unreadable assignment annotations", key(pod));
      return;
    }
    assignedPods.put(uid, retained(pod));
    preempted.onPod(uid, pod);
    AllocationState held =
        pod.getMetadata().getDeletionTimestamp() != null
            ? AllocationState.TERMINATING
            : AllocationState.BOUND;
    GpuNode node = gpuNodes.get(nodeName);
    if (node == null || !nodes.contains(nodeName)) {
      return; // applied when the node appears
    }
    Set<String> uuids = new HashSet<>(assignment.get().gpuUuids());
    boolean applied =
        state.holdAssigned(
            uid,
            nodeName,
            uuids,
            held,
            () ->
                DemandMapper.fromAssignment(key(pod), uid, request, assignment.get(), node, held));
    if (!applied) {
      LOG.warn("pod {} names GPUs {} that node {} does not have", key(pod), uuids, nodeName);
    }
  }

  private static String key(Pod pod) {
    return DemandMapper.podKey(pod);
  }

  /** The node kube-scheduler nominated an unbound, live pod to, or null. */
  private static @Nullable String nominatedNode(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null || pod.getSpec() == null) {
      return null;
    }
    String bound = pod.getSpec().getNodeName();
    if (bound != null && !bound.isEmpty()) {
      return null;
    }
    if (pod.getStatus() == null) {
      return null;
    }
    String phase = pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      return null;
    }
    String node = pod.getStatus().getNominatedNodeName();
    return node == null || node.isEmpty() ? null : node;
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
    if (state.nominations().forget(uid)) {
      state.roomOpened();
    }
    preempted.onDelete(uid, pod, assignedPods.containsKey(uid));
    assignedPods.remove(uid);
    state.podGone(uid);
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
  }
}
