package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Finds the GPUNode that holds a GPU and edits its {@code spec.cordonedGpus} with optimistic
 * concurrency: the update carries the resourceVersion it read, and a 409 Conflict (someone else
 * wrote the GPUNode meanwhile, e.g. a cordon of another GPU) reads it again and retries.
 */
final class GpuCordons {

  private static final int ATTEMPTS = 10;

  /** What an edit did: {@code changed} false when the list already was as asked. */
  record Outcome(String node, boolean changed, int conflicts) {}

  private GpuCordons() {}

  /** Returns the GPUNode whose status lists {@code uuid}, or whose cordon list holds it. */
  static Optional<GPUNode> holding(KubernetesClient client, String uuid) {
    List<GPUNode> nodes = client.resources(GPUNode.class).list().getItems();
    for (GPUNode n : nodes) {
      if (n.getStatus() != null
          && n.getStatus().getGpus().stream().map(GpuStatus::getUuid).anyMatch(uuid::equals)) {
        return Optional.of(n);
      }
    }
    return nodes.stream()
        .filter(
            n ->
                n.getSpec() != null
                    && n.getSpec().getCordonedGpus().stream()
                        .anyMatch(c -> uuid.equals(c.getUuid())))
        .findFirst();
  }

  /**
   * Applies {@code edit} to the cordon list of {@code node}'s GPUNode and writes it back if it
   * changed; with {@code dryRun} the API server validates the write without storing it.
   */
  static Outcome edit(
      KubernetesClient client, GPUNode node, UnaryOperator<List<GpuCordon>> edit, boolean dryRun) {
    String name = node.getMetadata().getName();
    GPUNode current = node;
    for (int attempt = 1; ; attempt++) {
      GPUNodeSpec spec = current.getSpec() == null ? new GPUNodeSpec(name) : current.getSpec();
      List<GpuCordon> before = spec.getCordonedGpus();
      List<GpuCordon> after = edit.apply(before);
      if (same(before, after)) {
        return new Outcome(name, false, attempt - 1);
      }
      spec.setCordonedGpus(after);
      current.setSpec(spec);
      try {
        if (dryRun) {
          client.resources(GPUNode.class).resource(current).dryRun().update();
        } else {
          client.resources(GPUNode.class).resource(current).update();
        }
        return new Outcome(name, true, attempt - 1);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= ATTEMPTS) {
          throw e;
        }
        current = client.resources(GPUNode.class).withName(name).get();
        if (current == null) {
          throw new IllegalStateException("GPUNode " + name + " was deleted meanwhile");
        }
      }
    }
  }

  private static boolean same(List<GpuCordon> a, List<GpuCordon> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      GpuCordon x = a.get(i);
      GpuCordon y = b.get(i);
      if (!java.util.Objects.equals(x.getUuid(), y.getUuid())
          || !java.util.Objects.equals(x.getReason(), y.getReason())
          || !java.util.Objects.equals(x.getTime(), y.getTime())) {
        return false;
      }
    }
    return true;
  }
}
