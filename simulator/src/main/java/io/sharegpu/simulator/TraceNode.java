package io.sharegpu.simulator;

/**
 * A row of a trace node list.
 *
 * @param name node name
 * @param cpuMilli CPU capacity in thousandths of a core
 * @param memoryMib memory capacity
 * @param gpus number of GPUs
 * @param model GPU model code (empty for a node without GPUs)
 */
public record TraceNode(String name, long cpuMilli, long memoryMib, int gpus, String model) {
  public TraceNode {
    if (cpuMilli < 0 || memoryMib < 0 || gpus < 0) {
      throw new IllegalArgumentException("node " + name + ": negative capacity");
    }
  }
}
