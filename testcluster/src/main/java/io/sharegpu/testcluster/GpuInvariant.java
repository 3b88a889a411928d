package io.sharegpu.testcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * ShareGPU's safety invariant read back from the API server: no GPU holds more compute or memory
 * than it has, and a whole GPU is held by one pod only.
 */
public final class GpuInvariant {

  private GpuInvariant() {}

  /**
   * Asserts the invariant over the bound pods of {@code pods} (unbound ones are skipped): every
   * bound pod has a valid GPU request and an assignment, each assigned GPU is one of {@code gpus}
   * (by UUID) on the pod's node ({@code nodeOfGpu}), and the shares on each GPU fit it. A whole GPU
   * counts 1000 milli and all its memory.
   */
  public static void assertNoGpuOverCommitted(
      List<Pod> pods, Map<String, GpuStatus> gpus, Map<String, String> nodeOfGpu) {
    Map<String, Integer> compute = new HashMap<>();
    Map<String, Long> memory = new HashMap<>();
    Map<String, Integer> holders = new HashMap<>();
    Map<String, Boolean> exclusive = new HashMap<>();
    for (Pod p : pods) {
      if (p.getSpec().getNodeName() == null) {
        continue;
      }
      ParsedRequest parsed = PodGpuRequestParser.parse(p);
      assertThat(parsed).isInstanceOf(ParsedRequest.Valid.class);
      var request = ((ParsedRequest.Valid) parsed).request();
      PodAssignment a =
          AssignmentAnnotations.decode(
                  p.getSpec().getNodeName(),
                  p.getMetadata().getAnnotations(),
                  request.containerNames())
              .orElseThrow(
                  () ->
                      new AssertionError(p.getMetadata().getName() + " bound without assignment"));
      for (ContainerGpuRequest c : request.containers()) {
        ContainerAssignment ca =
            a.containers().stream()
                .filter(x -> x.container().equals(c.container()))
                .findFirst()
                .orElseThrow();
        for (String uuid : ca.gpuUuids()) {
          assertThat(nodeOfGpu.get(uuid)).isEqualTo(p.getSpec().getNodeName());
          int milli = c.wholeGpus() ? 1000 : c.computeMilli();
          long mem = c.wholeGpus() ? gpus.get(uuid).getMemoryMiB() : ca.memoryMibPerGpu();
          compute.merge(uuid, milli, Integer::sum);
          memory.merge(uuid, mem, Long::sum);
          holders.merge(uuid, 1, Integer::sum);
          if (c.wholeGpus()) {
            exclusive.put(uuid, true);
          }
        }
      }
    }
    for (String uuid : compute.keySet()) {
      GpuStatus g = gpus.get(uuid);
      assertThat(compute.get(uuid))
          .as("compute on " + uuid)
          .isLessThanOrEqualTo(g.getComputeMilli());
      assertThat(memory.get(uuid)).as("memory on " + uuid).isLessThanOrEqualTo(g.getMemoryMiB());
      if (exclusive.getOrDefault(uuid, false)) {
        assertThat(holders.get(uuid)).as("exclusive " + uuid).isEqualTo(1);
      }
    }
  }
}
