package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Packs: prefers the node that is most used after the placement, and on it the GPU that is most
 * used (best fit), so that other GPUs stay idle for whole-GPU pods. Utilization of a GPU is the
 * mean of its compute and memory fractions held.
 */
public record BinPackPolicy() implements PlacementPolicy, GpuPreference {
  /** Registered name. */
  public static final String NAME = "binpack";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    double[] u = new double[2];
    Utilization.after(view.gpus(), grant, u);
    return u[0] + 1e-3 * u[1];
  }

  /** {@link #score} from the candidate's arrays, with the same arithmetic. */
  @Override
  public double scoreCandidate(NodeView view, PodDemand pod, CandidateGrant candidate) {
    double[] u = new double[2];
    Utilization.after(view.gpus(), candidate, u);
    return u[0] + 1e-3 * u[1];
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    return Utilization.of(gpu, (long) usedMilli + addMilli, usedMemoryMib + addMemoryMib);
  }
}
