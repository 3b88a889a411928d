package io.sharegpu.controller.reconcile;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.controller.model.Preemptions;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Maps informer events to SharePod keys and queues them: a SharePod event queues the SharePod, a
 * pod event the SharePod named in its {@code sharegpu.io/sharepod} label, a GPUNode event the
 * SharePods on that node (their GPU models may have changed), kube-scheduler's Preempted Event
 * about a pod the SharePod of the pod's name (a SharePod's pod has its name; the reconciler checks
 * the UID). What changed does not matter: the reconciler always looks at the whole SharePod. A pod
 * seen disrupted (DisruptionTarget=True) is remembered in the caches first, so that it is still
 * known once deleted.
 */
final class SharePodEventHandler {

  private final ReconcileQueue queue;
  private final Supplier<SharePodCaches> caches;

  SharePodEventHandler(ReconcileQueue queue, Supplier<SharePodCaches> caches) {
    this.queue = queue;
    this.caches = caches;
  }

  ResourceEventHandler<SharePod> sharePods() {
    return handler(sp -> queue.add(ResourceKey.of(sp)));
  }

  ResourceEventHandler<Pod> pods() {
    return handler(
        pod -> {
          String owner = label(pod);
          String namespace = pod.getMetadata().getNamespace();
          if (owner != null && !owner.isEmpty() && namespace != null) {
            ResourceKey key = new ResourceKey(namespace, owner);
            if (Preemptions.disrupted(pod)) {
              // before queueing: the pod may be gone from the cache when the key is reconciled
              caches.get().rememberDisrupted(key, pod);
            }
            queue.add(key);
          }
        });
  }

  /** Queues the SharePod named like the pod a Preempted Event is about. */
  ResourceEventHandler<Event> preemptedEvents() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Event obj) {
        enqueue(obj);
      }

      @Override
      public void onUpdate(Event oldObj, Event newObj) {
        enqueue(newObj);
      }

      @Override
      public void onDelete(Event obj, boolean deletedFinalStateUnknown) {
        // an expired Event changes nothing a SharePod shows
      }

      private void enqueue(Event event) {
        ObjectReference about = event.getInvolvedObject();
        if (Preemptions.PREEMPTED_EVENT.equals(event.getReason())
            && about != null
            && "Pod".equals(about.getKind())
            && about.getNamespace() != null
            && about.getName() != null) {
          queue.add(new ResourceKey(about.getNamespace(), about.getName()));
        }
      }
    };
  }

  private void enqueueOwner(Pod pod) {
    String owner = label(pod);
    String namespace = pod.getMetadata().getNamespace();
    if (owner != null && !owner.isEmpty() && namespace != null) {
      queue.add(new ResourceKey(namespace, owner));
    }
  }

  /**
   * Queues the SharePods on a GPUNode's node when its GPU models may have changed; heartbeats
   * (which change nothing a SharePod shows) are ignored.
   */
  ResourceEventHandler<GPUNode> gpuNodes() {
    Consumer<GPUNode> enqueue =
        node -> caches.get().sharePodsOnNode(node.getMetadata().getName()).forEach(queue::add);
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GPUNode obj) {
        enqueue.accept(obj);
      }

      @Override
      public void onUpdate(GPUNode oldObj, GPUNode newObj) {
        if (!models(oldObj).equals(models(newObj))) {
          enqueue.accept(newObj);
        }
      }

      @Override
      public void onDelete(GPUNode obj, boolean deletedFinalStateUnknown) {
        enqueue.accept(obj);
      }
    };
  }

  /** Returns "uuid=model" of every GPU, in order. */
  static List<String> models(GPUNode node) {
    if (node.getStatus() == null) {
      return List.of();
    }
    return node.getStatus().getGpus().stream().map(g -> g.getUuid() + "=" + g.getModel()).toList();
  }

  private static @Nullable String label(HasMetadata object) {
    Map<String, String> labels = object.getMetadata().getLabels();
    return labels == null ? null : labels.get(ShareGpuAnnotations.SHAREPOD_LABEL);
  }

  private static <T extends HasMetadata> ResourceEventHandler<T> handler(Consumer<T> enqueue) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        enqueue.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        enqueue.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        enqueue.accept(obj);
      }
    };
  }
}
