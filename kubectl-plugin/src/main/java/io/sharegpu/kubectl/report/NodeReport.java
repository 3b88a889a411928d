package io.sharegpu.kubectl.report;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One GPUNode: its GPUs with their pods.
 *
 * @param name the node (and GPUNode) name
 * @param enforcement {@code mps} or {@code none}, null when not reported yet
 * @param heartbeatTime when the node agent last reported, RFC 3339, null when never
 * @param gpus the GPUs by index
 */
public record NodeReport(
    String name,
    @Nullable String enforcement,
    @Nullable String heartbeatTime,
    List<GpuReport> gpus) {

  public NodeReport {
    gpus = List.copyOf(gpus);
  }
}
