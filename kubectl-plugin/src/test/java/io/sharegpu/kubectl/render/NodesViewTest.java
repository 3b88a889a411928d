package io.sharegpu.kubectl.render;

import static io.sharegpu.kubectl.Fixtures.assignedPod;
import static io.sharegpu.kubectl.Fixtures.gpuNode;
import static io.sharegpu.kubectl.Fixtures.uuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.kubectl.Fixtures;
import io.sharegpu.kubectl.report.NodeReport;
import io.sharegpu.kubectl.report.Reports;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class NodesViewTest {

  private static List<NodeReport> cluster() {
    GPUNode n1 = gpuNode("n1", 2);
    Fixtures.cordoned(n1, uuid("n1", 1), "Xid 79");
    n1.getStatus().getGpus().get(1).setHealthy(false);
    return Reports.nodes(
        List.of(n1, gpuNode("n2", 1)),
        List.of(
            assignedPod("ml", "a", "n1", 250, 20390, 500, uuid("n1", 0)),
            assignedPod("ml", "b", "n1", 500, 40779, 500, uuid("n1", 0))));
  }

  @Test
  void showsOneRowPerGpuWithBarsPodsHealthAndCordon() {
    String out = NodesView.table(cluster(), false, Style.PLAIN);
    List<String> lines = out.lines().toList();
    assertThat(lines.get(0))
        .startsWith("NODE   GPU   MODEL")
        .contains("COMPUTE", "MEMORY", "PODS", "MIG", "HEALTH", "STATE");
    assertThat(lines.get(1))
        .startsWith("n1     0     NVIDIA H100 80GB HBM3")
        .contains("[######..] 0.75/1")
        .contains("[######..] 59.7/79.6Gi")
        .contains("ml/a,ml/b")
        .contains("Healthy")
        .endsWith("Schedulable");
    assertThat(lines.get(2)).contains("[........] 0/1").contains("Unhealthy").endsWith("Cordoned");
    assertThat(lines.get(3)).startsWith("n2     0");
    assertThat(lines.get(4))
        .isEqualTo(
            "2 nodes, 3 GPUs: compute 0.75/3 allocated, memory 59.7/238.9Gi; 1 cordoned, 1"
                + " unhealthy");
    assertThat(lines).hasSize(5);
  }

  @Test
  void columnsAreAlignedAndLinesHaveNoTrailingSpaces() {
    List<String> lines = NodesView.table(cluster(), false, Style.PLAIN).lines().toList();
    int compute = lines.get(0).indexOf("COMPUTE");
    for (String line : lines.subList(1, 4)) {
      assertThat(line.charAt(compute)).isEqualTo('[');
      assertThat(line).doesNotEndWith(" ");
    }
  }

  @Test
  void wideAddsUuidParentReasonAndEachPodsShareAndMemory() {
    String out = NodesView.table(cluster(), true, Style.PLAIN);
    assertThat(out.lines().findFirst().orElseThrow())
        .contains("UUID", "PARENT", "REASON", "ENFORCEMENT");
    assertThat(out)
        .contains(uuid("n1", 0))
        .contains("ml/a/main(0.25,19.9Gi),ml/b/main(0.5,39.8Gi)")
        .contains("Xid 79 (2026-12-05T08:00:00Z)")
        .contains("mps");
  }

  @Test
  void plainStyleHasNoEscapeSequencesAndAnsiStyleColoursBarsAndStates() {
    assertThat(NodesView.table(cluster(), true, Style.PLAIN)).doesNotContain("\u001b[");
    String coloured = NodesView.table(cluster(), false, Style.ANSI);
    assertThat(coloured)
        .contains("\u001b[33m######\u001b[0m") // 75 %: yellow
        .contains("\u001b[31mUnhealthy\u001b[0m")
        .contains("\u001b[33mCordoned\u001b[0m");
    // alignment ignores the escape sequences
    List<String> lines = coloured.lines().toList();
    assertThat(Style.visibleLength(lines.get(1)))
        .isEqualTo(
            Style.visibleLength(
                NodesView.table(cluster(), false, Style.PLAIN).lines().toList().get(1)));
  }

  @Test
  void jsonAndYamlCarryTheSameReport() {
    List<NodeReport> report = cluster();
    JsonNode json = JsonMapper.builder().build().readTree(Structured.json(report));
    assertThat(json.get(0).get("name").asString()).isEqualTo("n1");
    JsonNode gpu0 = json.get(0).get("gpus").get(0);
    assertThat(gpu0.get("usedMilli").asInt()).isEqualTo(750);
    assertThat(gpu0.get("pods").get(1).get("pod").asString()).isEqualTo("b");
    assertThat(json.get(0).get("gpus").get(1).get("cordon").get("reason").asString())
        .isEqualTo("Xid 79");
    String yaml = Structured.yaml(report);
    assertThat(yaml)
        .contains("name: \"n1\"")
        .contains("usedMilli: 750")
        .contains("reason: \"Xid 79\"");
  }
}
