package io.sharegpu.testcluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The core/v1 Events e2e tests read: what kube-scheduler and ShareGPU's apps reported. */
public final class TestEvents {

  /** The reason kube-scheduler gives an Event when a pod fits no node. */
  public static final String FAILED_SCHEDULING = "FailedScheduling";

  private TestEvents() {}

  /** Events in {@code namespace} about the object of {@code kind} named {@code name}. */
  public static List<Event> about(
      KubernetesClient client, String namespace, String kind, String name) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(
            e ->
                kind.equals(e.getInvolvedObject().getKind())
                    && name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  /** FailedScheduling Events in {@code namespace} about the object named {@code name}. */
  public static List<Event> failedScheduling(
      KubernetesClient client, String namespace, String name) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .filter(e -> FAILED_SCHEDULING.equals(e.getReason()))
        .toList();
  }

  /** The names of the objects in {@code namespace} with a FailedScheduling Event. */
  public static Set<String> failedSchedulingNames(KubernetesClient client, String namespace) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> FAILED_SCHEDULING.equals(e.getReason()))
        .map(e -> e.getInvolvedObject().getName())
        .collect(Collectors.toSet());
  }
}
