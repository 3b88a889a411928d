package io.sharegpu.kubectl.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.kubectl.report.Explanation;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

class ExplainViewTest {

  /** The shape of the extender's DebugController.PodExplanation. */
  static final String ANSWER =
      """
      {"pod":"ml/big","requestErrors":[],"heldOn":null,"nodes":[
        {"node":"n1","fits":false,"reason":"no GPU has 40960 MiB of memory free",
         "gpus":["GPU 0 (GPU-n1-0): 20480 MiB free"],"preemption":"would preempt ml/small"},
        {"node":"n2","fits":false,"reason":"GPU model H100 is not one of A100",
         "gpus":[],"preemption":"no preemption: the model does not match"},
        {"node":"n3","fits":true,"reason":"fits","gpus":[],"preemption":null}]}
      """;

  static Explanation parse(String json) {
    return JsonMapper.builder()
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .build()
        .readValue(json, Explanation.class);
  }

  @Test
  void showsPerNodeReasonsPreemptionPerGpuReasonsAndWhereItFits() {
    String out = ExplainView.render(parse(ANSWER), Style.PLAIN);
    List<String> lines = out.lines().toList();
    assertThat(lines.get(0)).isEqualTo("Pod ml/big: fits on 1 of 3 nodes");
    assertThat(lines.get(1)).startsWith("NODE   FITS   REASON").endsWith("PREEMPTION");
    assertThat(lines.get(2))
        .startsWith("n1     no     no GPU has 40960 MiB of memory free")
        .endsWith("would preempt ml/small");
    assertThat(lines.get(4)).startsWith("n3     yes    fits").endsWith("-");
    assertThat(out)
        .contains("Per GPU:\n  n1: GPU 0 (GPU-n1-0): 20480 MiB free\n")
        .endsWith("Would fit now on: n3\n");
  }

  @Test
  void nodesWithTheSameAnswerShareARowUnlessEveryNodeIsAsked() {
    StringBuilder json = new StringBuilder("{\"pod\":\"ml/x\",\"nodes\":[");
    for (int i = 1; i <= 5; i++) {
      json.append(i > 1 ? "," : "")
          .append("{\"node\":\"g")
          .append(i)
          .append("\",\"fits\":false,\"reason\":\"full\",\"gpus\":[],\"preemption\":null}");
    }
    json.append(",{\"node\":\"h1\",\"fits\":true,\"reason\":\"fits\",\"gpus\":[]}]}");
    Explanation e = parse(json.toString());
    List<String> grouped = ExplainView.render(e, Style.PLAIN).lines().toList();
    assertThat(grouped.get(0)).isEqualTo("Pod ml/x: fits on 1 of 6 nodes");
    assertThat(grouped.get(2)).startsWith("g1, g2 +3 more (5 nodes)   no     full");
    assertThat(grouped.get(3)).startsWith("h1                         yes    fits");
    assertThat(ExplainView.render(e, Style.PLAIN, true).lines().filter(l -> l.startsWith("g")))
        .hasSize(5);
  }

  @Test
  void saysWhatPreemptionWouldDoWhenNothingFits() {
    String out =
        ExplainView.render(
            parse(
                ANSWER.replace(
                    "\"fits\":true,\"reason\":\"fits\"", "\"fits\":false,\"reason\":\"full\"")),
            Style.PLAIN);
    assertThat(out).endsWith("Fits nowhere now; with preemption: n1 (would preempt ml/small)\n");
  }

  @Test
  void listsRequestErrorsInsteadOfNodes() {
    String out =
        ExplainView.render(
            parse(
                "{\"pod\":\"ml/x\",\"requestErrors\":[\"container \\\"main\\\": bad\"],\"nodes\":[]}"),
            Style.PLAIN);
    assertThat(out)
        .isEqualTo("Pod ml/x: its GPU request cannot be scheduled:\n  container \"main\": bad\n");
  }
}
