package io.sharegpu.controller.reconcile;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.sharepod.SharePod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Read access to the informer caches: SharePods and their pods (one informer per watched namespace,
 * or one for all) and GPUNodes. The reconciler reads only from here, never lists the API server.
 */
final class SharePodCaches {

  private final List<SharedIndexInformer<SharePod>> sharePods;
  private final List<SharedIndexInformer<Pod>> pods;
  private final SharedIndexInformer<GPUNode> gpuNodes;

  SharePodCaches(
      List<SharedIndexInformer<SharePod>> sharePods,
      List<SharedIndexInformer<Pod>> pods,
      SharedIndexInformer<GPUNode> gpuNodes) {
    this.sharePods = List.copyOf(sharePods);
    this.pods = List.copyOf(pods);
    this.gpuNodes = gpuNodes;
  }

  Optional<SharePod> sharePod(ResourceKey key) {
    return find(sharePods, key);
  }

  /** Returns the pod named after the SharePod, if it carries the SharePod label. */
  Optional<Pod> pod(ResourceKey key) {
    return find(pods, key);
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

  boolean synced() {
    return Stream.concat(Stream.concat(sharePods.stream(), pods.stream()), Stream.of(gpuNodes))
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
