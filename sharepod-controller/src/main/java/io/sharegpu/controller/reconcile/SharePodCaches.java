package io.sharegpu.controller.reconcile;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.controller.model.Preemptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Read access to the informer caches: SharePods, their pods and kube-scheduler's Preempted Events
 * (one informer each per watched namespace, or one for all) and GPUNodes. The reconciler reads only
 * from here, never lists the API server. Also remembers, per SharePod, the last pod seen disrupted
 * (DisruptionTarget=True): kube-scheduler deletes a preempted pod right after marking it, and a
 * grace-0 pod is gone at once, so the reconciler may only ever see the pod missing. In memory only:
 * a restarted controller takes a pod it never saw disrupted for one deleted by hand.
 */
final class SharePodCaches {

  /** Index of the Preempted Events by the UID of the pod they are about. */
  static final String BY_POD_UID = "byPodUid";

  /** Indexes Preempted Events about pods by the pod's UID. */
  static final Function<Event, List<String>> PREEMPTED_POD_UID =
      e ->
          Preemptions.PREEMPTED_EVENT.equals(e.getReason())
                  && e.getInvolvedObject() != null
                  && "Pod".equals(e.getInvolvedObject().getKind())
                  && e.getInvolvedObject().getUid() != null
              ? List.of(e.getInvolvedObject().getUid())
              : List.of();

  private final List<SharedIndexInformer<SharePod>> sharePods;
  private final List<SharedIndexInformer<Pod>> pods;
  private final List<SharedIndexInformer<Event>> preemptedEvents;
  private final SharedIndexInformer<GPUNode> gpuNodes;
  private final Map<ResourceKey, Pod> lastDisrupted = new ConcurrentHashMap<>();

  SharePodCaches(
      List<SharedIndexInformer<SharePod>> sharePods,
      List<SharedIndexInformer<Pod>> pods,
      List<SharedIndexInformer<Event>> preemptedEvents,
      SharedIndexInformer<GPUNode> gpuNodes) {
    this.sharePods = List.copyOf(sharePods);
    this.pods = List.copyOf(pods);
    this.preemptedEvents = List.copyOf(preemptedEvents);
    this.gpuNodes = gpuNodes;
  }

  Optional<SharePod> sharePod(ResourceKey key) {
    return find(sharePods, key);
  }

  /** Returns the pod named after the SharePod, if it carries the SharePod label. */
  Optional<Pod> pod(ResourceKey key) {
    return find(pods, key);
  }

  /** Returns kube-scheduler's Preempted Events about the pod with this UID. */
  List<Event> preemptedEvents(String podUid) {
    List<Event> found = new ArrayList<>();
    for (SharedIndexInformer<Event> informer : preemptedEvents) {
      found.addAll(informer.getIndexer().byIndex(BY_POD_UID, podUid));
    }
    return found;
  }

  /** Remembers the latest state of a SharePod's pod seen disrupted. */
  void rememberDisrupted(ResourceKey key, Pod pod) {
    lastDisrupted.put(key, pod);
  }

  /** Returns the latest state of the SharePod's last pod seen disrupted, if any. */
  Optional<Pod> lastDisrupted(ResourceKey key) {
    return Optional.ofNullable(lastDisrupted.get(key));
  }

  /** Forgets the SharePod's disrupted pod (its successor started, or the SharePod is gone). */
  void forgetDisrupted(ResourceKey key) {
    lastDisrupted.remove(key);
  }

  /** Returns the GPU model by UUID of a node's GPUNode; empty if it has none. */
  Map<String, String> gpuModels(String node) {
    GPUNode gpuNode = gpuNodes.getIndexer().getByKey(node);
    Map<String, String> models = new HashMap<>();
    if (gpuNode != null && gpuNode.getStatus() != null) {
      for (GpuStatus gpu : gpuNode.getStatus().getGpus()) {
        if (gpu.getUuid() != null && gpu.getModel() != null) {
          models.put(gpu.getUuid(), gpu.getModel());
        }
      }
    }
    return models;
  }

  /** Returns the keys of the SharePods whose status names {@code node}. */
  List<ResourceKey> sharePodsOnNode(String node) {
    return sharePods.stream()
        .flatMap(i -> i.getIndexer().list().stream())
        .filter(sp -> sp.getStatus() != null && node.equals(sp.getStatus().getNodeName()))
        .map(ResourceKey::of)
        .toList();
  }

  /** Returns the keys of every SharePod in the cache. */
  List<ResourceKey> sharePodKeys() {
    return sharePods.stream()
        .flatMap(i -> i.getIndexer().list().stream())
        .map(ResourceKey::of)
        .toList();
  }

  boolean synced() {
    return Stream.of(
            sharePods.stream(), pods.stream(), preemptedEvents.stream(), Stream.of(gpuNodes))
        .flatMap(s -> s)
        .allMatch(SharedIndexInformer::hasSynced);
  }

  private static <T> Optional<T> find(List<SharedIndexInformer<T>> informers, ResourceKey key) {
    String cacheKey = key.namespace() + "/" + key.name();
    for (SharedIndexInformer<T> informer : informers) {
      T found = informer.getIndexer().getByKey(cacheKey);
      if (found != null) {
        return Optional.of(found);
      }
    }
    return Optional.empty();
  }
}
