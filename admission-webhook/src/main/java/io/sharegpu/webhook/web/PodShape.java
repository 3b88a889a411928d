package io.sharegpu.webhook.web;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What JSON allows in a Pod but kube-apiserver never sends (a null container, env entry or
 * quantity): refused before the policy reads the pod, with the place named.
 */
final class PodShape {

  private PodShape() {}

  /** Returns what is wrong with the pod's shape, or empty. */
  static Optional<String> problem(Pod pod) {
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return Optional.empty();
    }
    Optional<String> p = containers(spec.getInitContainers(), "spec.initContainers");
    return p.isPresent() ? p : containers(spec.getContainers(), "spec.containers");
  }

  private static Optional<String> containers(@Nullable List<Container> containers, String at) {
    if (containers == null) {
      return Optional.empty();
    }
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      String here = at + "[" + i + "]";
      if (c == null) {
        return Optional.of(here + " is null");
      }
      List<EnvVar> env = c.getEnv();
      if (env != null && env.contains(null)) {
        return Optional.of(here + ".env has a null entry");
      }
      ResourceRequirements r = c.getResources();
      if (r != null && (hasNull(r.getLimits()) || hasNull(r.getRequests()))) {
        return Optional.of(here + ".resources has a resource without a quantity");
      }
    }
    return Optional.empty();
  }

  private static boolean hasNull(@Nullable Map<String, Quantity> quantities) {
    if (quantities == null) {
      return false;
    }
    for (Quantity q : quantities.values()) {
      if (q == null || q.getAmount() == null) {
        return true;
      }
    }
    return false;
  }
}
