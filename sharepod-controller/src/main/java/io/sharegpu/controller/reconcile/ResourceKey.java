package io.sharegpu.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** Names a SharePod: the unit of work of the reconcile queue. */
public record ResourceKey(String namespace, String name) {

  public ResourceKey {
    if (namespace.isEmpty() || name.isEmpty()) {
      throw new IllegalArgumentException("namespace and name must not be empty");
    }
  }

  /** Returns the key of a namespaced object. */
  public static ResourceKey of(HasMetadata object) {
    return new ResourceKey(object.getMetadata().getNamespace(), object.getMetadata().getName());
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
