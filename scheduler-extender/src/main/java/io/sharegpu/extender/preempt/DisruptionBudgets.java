package io.sharegpu.extender.preempt;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The cluster's PodDisruptionBudgets, to tell whether evicting a pod would violate one, as
 * kube-scheduler's preemption counts it: a budget covering the pod (same namespace, its selector
 * matches the pod's labels) that allows no more disruptions ({@code status.disruptionsAllowed} 0).
 * kube-scheduler also counts budgets that several victims of one node exhaust together; the victim
 * selector weighs each candidate on its own, which can only under-count.
 */
public final class DisruptionBudgets implements AutoCloseable {

  private final @Nullable SharedIndexInformer<PodDisruptionBudget> informer;

  private DisruptionBudgets(@Nullable SharedIndexInformer<PodDisruptionBudget> informer) {
    this.informer = informer;
  }

  /** Watches every namespace's budgets. */
  public static DisruptionBudgets watch(KubernetesClient client) {
    return new DisruptionBudgets(
        client.policy().v1().podDisruptionBudget().inAnyNamespace().inform());
  }

  /** No budgets at all (tests, clusters where the extender may not read them). */
  public static DisruptionBudgets none() {
    return new DisruptionBudgets(null);
  }

  /** True when evicting {@code pod} now would violate a budget that covers it. */
  public boolean evictionViolates(Pod pod) {
    SharedIndexInformer<PodDisruptionBudget> i = informer;
    if (i == null || pod.getMetadata() == null) {
      return false;
    }
    String namespace = pod.getMetadata().getNamespace();
    Map<String, String> labels = pod.getMetadata().getLabels();
    for (PodDisruptionBudget pdb : i.getStore().list()) {
      if (pdb.getMetadata() == null
          || !java.util.Objects.equals(namespace, pdb.getMetadata().getNamespace())
          || pdb.getSpec() == null) {
        continue;
      }
      if (matches(pdb.getSpec().getSelector(), labels == null ? Map.of() : labels)) {
        Integer allowed = pdb.getStatus() == null ? null : pdb.getStatus().getDisruptionsAllowed();
        if (allowed == null || allowed <= 0) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Kubernetes label selector semantics; a budget with a null selector covers nothing, an empty one
   * every pod of its namespace (policy/v1).
   */
  static boolean matches(@Nullable LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        if (!java.util.Objects.equals(labels.get(e.getKey()), e.getValue())) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        String value = labels.get(r.getKey());
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        boolean ok =
            switch (r.getOperator() == null ? "" : r.getOperator()) {
              case "In" -> value != null && values.contains(value);
              case "NotIn" -> value == null || !values.contains(value);
              case "Exists" -> value != null;
              case "DoesNotExist" -> value == null;
              default -> false;
            };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
  }
}
