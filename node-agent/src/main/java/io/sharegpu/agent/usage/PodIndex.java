package io.sharegpu.agent.usage;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An informer on the pods bound to this node, indexed by UID. */
public final class PodIndex implements PodLookup, AutoCloseable {

  private static final String BY_UID = "uid";

  private final SharedIndexInformer<Pod> informer;

  /** Starts watching the pods with {@code spec.nodeName = nodeName}. */
  public PodIndex(KubernetesClient client, String nodeName) {
    informer =
        client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).runnableInformer(0);
    informer.addIndexers(Map.of(BY_UID, pod -> List.of(pod.getMetadata().getUid())));
    informer.start();
  }

  public boolean hasSynced() {
    return informer.hasSynced();
  }

  @Override
  public Optional<PodRef> find(String podUid, String containerId) {
    for (Pod pod : informer.getIndexer().byIndex(BY_UID, podUid)) {
      return Optional.of(
          new PodRef(
              pod.getMetadata().getNamespace(),
              pod.getMetadata().getName(),
              containerName(pod, containerId)));
    }
    return Optional.empty();
  }

  /** Returns the name of the container whose status carries {@code <runtime>://containerId}. */
  static String containerName(Pod pod, String containerId) {
    if (containerId.isEmpty() || pod.getStatus() == null) {
      return "";
    }
    List<ContainerStatus> statuses = new ArrayList<>(pod.getStatus().getContainerStatuses());
    statuses.addAll(pod.getStatus().getInitContainerStatuses());
    for (ContainerStatus status : statuses) {
      String id = status.getContainerID();
      if (id != null && id.endsWith("://" + containerId)) {
        return status.getName();
      }
    }
    return "";
  }

  @Override
  public void close() {
    informer.close();
  }
}
