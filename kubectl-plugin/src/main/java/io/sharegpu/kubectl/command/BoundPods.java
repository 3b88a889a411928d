package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The pods that may hold GPUs: bound to a node and not finished. The API server filters them
 * ({@code spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed}: assignments travel in the
 * Binding, so an assigned pod is always bound) and hands them over 500 at a time, so a large
 * cluster is never one huge answer.
 */
final class BoundPods {

  static final String SELECTOR = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed";
  private static final long PAGE = 500;

  private BoundPods() {}

  /** Returns them in {@code namespace}, or in every namespace when it is null. */
  static List<Pod> list(KubernetesClient client, @Nullable String namespace) {
    List<Pod> pods = new ArrayList<>();
    String next = null;
    do {
      ListOptionsBuilder options =
          new ListOptionsBuilder().withFieldSelector(SELECTOR).withLimit(PAGE);
      if (next != null) {
        options.withContinue(next);
      }
      PodList page =
          namespace == null
              ? client.pods().inAnyNamespace().list(options.build())
              : client.pods().inNamespace(namespace).list(options.build());
      pods.addAll(page.getItems());
      next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (next != null && !next.isEmpty());
    return pods;
  }
}
