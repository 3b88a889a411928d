package io.sharegpu.dra.slice;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GpuStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes a node's ResourceSlices (server-side apply, field manager {@code sharegpu-dra}) and the
 * DeviceClass. The node agent would call {@link #publish} with the GPUs it reports in its GPUNode
 * status; tests call it for simulated nodes.
 */
public final class ResourceSlicePublisher {
  /** The field manager of our writes. */
  public static final String FIELD_MANAGER = "sharegpu-dra";

  private final KubernetesClient client;

  public ResourceSlicePublisher(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Creates or updates the node's slices from {@code gpus} and deletes its slices left over from a
   * larger set; returns what the API server kept.
   */
  public List<ResourceSlice> publish(String node, List<GpuStatus> gpus, long generation) {
    List<ResourceSlice> kept = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (ResourceSlice slice : ResourceSlices.forNode(node, gpus, generation)) {
      names.add(slice.getMetadata().getName());
      kept.add(
          client.resource(slice).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply());
    }
    for (ResourceSlice old : slicesOf(node)) {
      if (!names.contains(old.getMetadata().getName())) {
        client.resource(old).delete();
      }
    }
    return kept;
  }

  /** Deletes the node's slices (the node is gone). */
  public void unpublish(String node) {
    client.resources(ResourceSlice.class).withLabel(ResourceSlices.NODE_LABEL, node).delete();
  }

  private List<ResourceSlice> slicesOf(String node) {
    return client
        .resources(ResourceSlice.class)
        .withLabel(ResourceSlices.NODE_LABEL, node)
        .list()
        .getItems();
  }

  /** Creates or updates the DeviceClass {@code gpu.sharegpu.io}. */
  public DeviceClass publishDeviceClass() {
    return client
        .resource(ResourceSlices.deviceClass())
        .fieldManager(FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }
}
