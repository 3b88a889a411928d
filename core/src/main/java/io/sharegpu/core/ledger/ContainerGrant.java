package io.sharegpu.core.ledger;

import java.util.List;

/**
 * The GPUs given to one container.
 *
 * @param container the container name
 * @param gpus one grant for a share, k grants for k whole GPUs
 * @param limitMilli the compute cap per GPU the container runs with
 */
public record ContainerGrant(String container, List<GpuGrant> gpus, int limitMilli) {

  public ContainerGrant {
    gpus = List.copyOf(gpus);
    if (gpus.isEmpty()) {
      throw new IllegalArgumentException("container " + container + " is granted no GPU");
    }
  }
}
