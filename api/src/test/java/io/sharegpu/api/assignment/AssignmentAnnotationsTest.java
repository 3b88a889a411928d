package io.sharegpu.api.assignment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.entry;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AssignmentAnnotationsTest {

  private static final Instant AT = Instant.parse("2026-12-02T22:00:00Z");
  private static final String GPU_A = "GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64";
  private static final String GPU_B = "GPU-0b0c0d0e-0000-1111-2222-333344445555";

  @Test
  void encodesAShareWithPodAndContainerKeys() {
    PodAssignment a =
        new PodAssignment(
            "node-1", List.of(new ContainerAssignment("main", List.of(GPU_A), 10240, 500)));

    assertThat(AssignmentAnnotations.encode(a, AT))
        .containsExactly(
            entry("sharegpu.io/assigned-gpus", GPU_A),
            entry("sharegpu.io/assigned-memory-mib", "10240"),
            entry("sharegpu.io/mps-active-thread-percentage", "50"),
            entry("sharegpu.io/mps-pinned-mem-limit", "0=10240M"),
            entry("sharegpu.io/assigned-gpus.main", GPU_A),
            entry("sharegpu.io/assigned-memory-mib.main", "10240"),
            entry("sharegpu.io/mps-active-thread-percentage.main", "50"),
            entry("sharegpu.io/mps-pinned-mem-limit.main", "0=10240M"),
            entry("sharegpu.io/assigned-node", "node-1"),
            entry("sharegpu.io/assigned-at", "2026-12-02T22:00:00Z"));
  }

  @Test
  void encodesWholeGpusAndSeveralContainers() {
    PodAssignment a =
        new PodAssignment(
            "node-2",
            List.of(
                new ContainerAssignment("trainer", List.of(GPU_A, GPU_B), 81559, 1000),
                new ContainerAssignment("evaluator", List.of(GPU_B), 2048, 255)));

    Map<String, String> annotations = AssignmentAnnotations.encode(a, AT);

    assertThat(annotations)
        .contains(
            entry("sharegpu.io/assigned-gpus", GPU_A + "," + GPU_B),
            entry("sharegpu.io/assigned-memory-mib", "165166"),
            entry("sharegpu.io/mps-active-thread-percentage", "100"),
            entry("sharegpu.io/mps-pinned-mem-limit", "0=81559M,1=81559M"),
            entry("sharegpu.io/assigned-gpus.trainer", GPU_A + "," + GPU_B),
            entry("sharegpu.io/assigned-memory-mib.trainer", "163118"),
            entry("sharegpu.io/mps-pinned-mem-limit.trainer", "0=81559M,1=81559M"),
            entry("sharegpu.io/mps-active-thread-percentage.trainer", "100"),
            entry("sharegpu.io/assigned-gpus.evaluator", GPU_B),
            entry("sharegpu.io/assigned-memory-mib.evaluator", "2048"),
            entry("sharegpu.io/mps-active-thread-percentage.evaluator", "26"),
            entry("sharegpu.io/mps-pinned-mem-limit.evaluator", "0=2048M"))
        .hasSize(4 + 2 * 4 + 2);
  }

  @Test
  void roundTripsThroughAnnotations() {
    PodAssignment a =
        new PodAssignment(
            "node-2",
            List.of(
                new ContainerAssignment("trainer", List.of(GPU_A, GPU_B), 81559, 1000),
                new ContainerAssignment("evaluator", List.of(GPU_B), 2048, 250),
                new ContainerAssignment("tiny", List.of(GPU_B), 0, 10)));

    Map<String, String> annotations = AssignmentAnnotations.encode(a, AT);

    assertThat(
            AssignmentAnnotations.decode(
                "node-2", annotations, List.of("trainer", "evaluator", "tiny")))
        .contains(a);
  }

  @Test
  void containerWithoutMemoryLimitGetsNoPinnedMemoryKey() {
    PodAssignment a =
        new PodAssignment("n", List.of(new ContainerAssignment("main", List.of(GPU_A), 0, 500)));

    assertThat(AssignmentAnnotations.encode(a, AT))
        .doesNotContainKeys(
            "sharegpu.io/mps-pinned-mem-limit", "sharegpu.io/mps-pinned-mem-limit.main")
        .containsEntry("sharegpu.io/assigned-memory-mib.main", "0");
  }

  @Test
  void decodeRoundsTheLimitUpToTenths() {
    PodAssignment a =
        new PodAssignment("n", List.of(new ContainerAssignment("main", List.of(GPU_A), 1, 255)));

    Optional<PodAssignment> decoded =
        AssignmentAnnotations.decode("n", AssignmentAnnotations.encode(a, AT), List.of("main"));

    assertThat(decoded).map(d -> d.containers().get(0).limitMilli()).contains(260);
  }

  @Test
  void neverAssignedPodDecodesToEmpty() {
    assertThat(AssignmentAnnotations.decode("node-1", Map.of("other", "x"), List.of("main")))
        .isEmpty();
    assertThat(AssignmentAnnotations.decode("node-1", Map.of(), List.of())).isEmpty();
  }

  @Test
  void singleContainerMayUseOnlyPodLevelKeys() {
    Map<String, String> legacy =
        Map.of(
            "sharegpu.io/assigned-gpus", GPU_A,
            "sharegpu.io/assigned-memory-mib", "4096",
            "sharegpu.io/mps-active-thread-percentage", "30");

    assertThat(AssignmentAnnotations.decode("node-1", legacy, List.of("main")))
        .contains(
            new PodAssignment(
                "node-1", List.of(new ContainerAssignment("main", List.of(GPU_A), 4096, 300))));
    // with two GPU containers the pod-level keys are ambiguous
    assertThat(AssignmentAnnotations.decode("node-1", legacy, List.of("a", "b"))).isEmpty();
  }

  @Test
  void decodeFallsBackToPinnedLimitAndAssignedNode() {
    Map<String, String> annotations = new HashMap<>();
    annotations.put("sharegpu.io/assigned-node", "node-9");
    annotations.put("sharegpu.io/assigned-gpus.main", GPU_A);
    annotations.put("sharegpu.io/mps-pinned-mem-limit.main", "0=2048M");
    annotations.put("sharegpu.io/mps-active-thread-percentage.main", "not-a-number");

    assertThat(AssignmentAnnotations.decode("", annotations, List.of("main")))
        .contains(
            new PodAssignment(
                "node-9", List.of(new ContainerAssignment("main", List.of(GPU_A), 2048, 1000))));
  }

  @Test
  void recordsRejectImpossibleAssignments() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ContainerAssignment("main", List.of(), 0, 500));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ContainerAssignment("main", List.of(GPU_A), 0, 0));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ContainerAssignment("main", List.of("a,b"), 0, 500));
    assertThatIllegalArgumentException().isThrownBy(() -> new PodAssignment("n", List.of()));
  }
}
