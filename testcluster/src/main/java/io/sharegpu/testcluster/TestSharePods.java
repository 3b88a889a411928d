package io.sharegpu.testcluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodStatus;
import org.jspecify.annotations.Nullable;

/** What e2e tests read of SharePods. */
public final class TestSharePods {

  private TestSharePods() {}

  /** The status of SharePod {@code namespace/name}, or null if it or its status is absent. */
  public static @Nullable SharePodStatus status(
      KubernetesClient client, String namespace, String name) {
    SharePod sp = client.resources(SharePod.class).inNamespace(namespace).withName(name).get();
    return sp == null ? null : sp.getStatus();
  }
}
