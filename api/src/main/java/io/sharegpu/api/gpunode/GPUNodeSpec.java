package io.sharegpu.api.gpunode;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which Node a GPUNode describes (equal to the GPUNode's name) and the operator's settings for its
 * GPUs: the cordoned ones. The node agent writes only the status and leaves the spec alone.
 */
public class GPUNodeSpec {

  private @Nullable String nodeName;
  private List<GpuCordon> cordonedGpus = new ArrayList<>();

  public GPUNodeSpec() {}

  public GPUNodeSpec(String nodeName) {
    this.nodeName = nodeName;
  }

  public @Nullable String getNodeName() {
    return nodeName;
  }

  public void setNodeName(@Nullable String nodeName) {
    this.nodeName = nodeName;
  }

  /** Returns the GPUs that take no new pods, each with its reason; empty when none. */
  public List<GpuCordon> getCordonedGpus() {
    return cordonedGpus;
  }

  public void setCordonedGpus(@Nullable List<GpuCordon> cordonedGpus) {
    this.cordonedGpus = cordonedGpus == null ? new ArrayList<>() : cordonedGpus;
  }
}
