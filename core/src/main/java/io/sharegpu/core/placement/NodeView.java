package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.GpuNode;
import java.util.List;

/**
 * A node as a policy sees it when scoring.
 *
 * @param node the node
 * @param gpus the usage of each GPU, in index order
 * @param freeCpuMilli host CPU not held; 0 when the node does not track it ({@code node.cpuMilli()
 *     == 0})
 * @param freeMemoryMib host memory not held; 0 when the node does not track it
 */
public record NodeView(GpuNode node, List<GpuUsage> gpus, long freeCpuMilli, long freeMemoryMib) {}
