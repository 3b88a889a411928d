package io.sharegpu.core.placement;

import java.util.List;

/**
 * Why a pod does not fit a node, in words a user understands.
 *
 * @param node the node name
 * @param reason one line; the same wording for every node that fails the same way (so that the
 *     scheduler's event groups them), e.g. {@code no GPU has 300m compute and 20480 MiB memory
 *     free}
 * @param gpuReasons one line per GPU of the node, e.g. {@code GPU 3 (NVIDIA H100 80GB HBM3,
 *     GPU-1234abcd…): 150m of 1000m compute free, need 300m}; empty from {@link Placement#filter}
 *     (ask {@link Placement#explain} for them)
 */
public record Rejection(String node, String reason, List<String> gpuReasons) {

  public Rejection {
    gpuReasons = List.copyOf(gpuReasons);
  }
}
