package io.sharegpu.api.gpunode;

import org.jspecify.annotations.Nullable;

/** Which Node a GPUNode describes (equal to the GPUNode's name). */
public class GPUNodeSpec {

  private @Nullable String nodeName;

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
}
