package io.sharegpu.extender.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UnschedulableSummaryTest {

  @Test
  void namesBothKindsOfRejectionAndShowsNodesLackingFreeGpusFirst() {
    Map<String, String> failed = new LinkedHashMap<>();
    failed.put("a", "GPUs busy");
    Map<String, String> unresolvable = new LinkedHashMap<>();
    unresolvable.put("t4", "15360 MiB per GPU, 40000 asked");
    unresolvable.put("cpu-only", "no GPUNode");
    unresolvable.put("x", "wrong model");

    String why = ExtenderHandler.summary(List.of("a", "t4", "cpu-only", "x"), failed, unresolvable);

    assertThat(why)
        .isEqualTo(
            "no node has GPUs that fit (4 checked, 1 without enough free GPU now, 3 that cannot"
                + " hold it); a: GPUs busy; t4: 15360 MiB per GPU, 40000 asked; cpu-only: no"
                + " GPUNode");
  }

  @Test
  void aNodeThatCannotHoldThePodIsNotCalledOneWithoutAGpuNode() {
    String why =
        ExtenderHandler.summary(
            List.of("t4"), Map.of(), Map.of("t4", "15360 MiB per GPU, 40000 asked"));
    assertThat(why)
        .isEqualTo(
            "no node has GPUs that fit (1 checked, 1 that cannot hold it); t4: 15360 MiB per GPU,"
                + " 40000 asked")
        .doesNotContain("GPUNode");
  }
}
