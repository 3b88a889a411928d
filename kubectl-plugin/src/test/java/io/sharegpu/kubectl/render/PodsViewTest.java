package io.sharegpu.kubectl.render;

import static io.sharegpu.kubectl.Fixtures.assignedPod;
import static io.sharegpu.kubectl.Fixtures.uuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.kubectl.report.Reports;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodsViewTest {

  @Test
  void showsNodeGpusShareLimitMemoryAndMpsCapsPerContainer() {
    String out =
        PodsView.table(
            Reports.pods(
                List.of(
                    assignedPod("ml", "nb", "n1", 250, 10240, 500, uuid("n1", 0)),
                    assignedPod("cv", "w", "n2", 2000, 0, 1000, uuid("n2", 0), uuid("n2", 1)))),
            true,
            false,
            Style.PLAIN);
    List<String> lines = out.lines().toList();
    assertThat(lines.get(0))
        .isEqualTo(
            "NAMESPACE   NAME   CONTAINER   NODE   GPUS                SHARE   LIMIT   MEMORY  "
                + " MPS-THREADS   MPS-MEM-LIMIT");
    assertThat(lines.get(1))
        .isEqualTo(
            "cv          w      main        n2     GPU-n2-0,GPU-n2-1   2       1       -       "
                + " 100%          -");
    assertThat(lines.get(2))
        .isEqualTo(
            "ml          nb     main        n1     GPU-n1-0            0.25    0.5     10Gi    "
                + " 50%           0=10240M");
  }

  @Test
  void manyGpusAreCountedUnlessWide() {
    List<String> four = List.of("GPU-a", "GPU-b", "GPU-c", "GPU-d");
    assertThat(PodsView.gpus(four, false)).isEqualTo("GPU-a,GPU-b +2 more");
    assertThat(PodsView.gpus(four, true)).isEqualTo("GPU-a,GPU-b,GPU-c,GPU-d");
    assertThat(PodsView.gpus(four.subList(0, 2), false)).isEqualTo("GPU-a,GPU-b");
  }

  @Test
  void withoutAllNamespacesThereIsNoNamespaceColumnAndWideAddsThePhase() {
    String out =
        PodsView.table(
            Reports.pods(List.of(assignedPod("ml", "nb", "n1", 250, 1536, 250, uuid("n1", 0)))),
            false,
            true,
            Style.PLAIN);
    assertThat(out.lines().findFirst().orElseThrow()).startsWith("NAME ").endsWith("PHASE");
    assertThat(out).contains("1.5Gi").contains("Pending");
  }
}
