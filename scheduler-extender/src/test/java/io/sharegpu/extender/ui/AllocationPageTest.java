package io.sharegpu.extender.ui;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class AllocationPageTest {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private static final String NODES =
      """
      [{"name":"n1","gpus":[
        {"index":0,"uuid":"GPU-0","model":"H100","memoryMib":80000,"computeMilli":1000,
         "healthy":true,"parentUuid":null,"migProfile":null,"usedMilli":750,
         "usedMemoryMib":30000,"exclusive":false,"pods":["a/x","b/y"]},
        {"index":1,"uuid":"GPU-1","model":"H100","memoryMib":80000,"computeMilli":1000,
         "healthy":true,"parentUuid":null,"migProfile":null,"usedMilli":0,
         "usedMemoryMib":0,"exclusive":false,"pods":[],"cordoned":true,"cordonReason":"ECC"},
        {"index":2,"uuid":"GPU-2","model":"H100","memoryMib":80000,"computeMilli":1000,
         "healthy":true,"parentUuid":null,"migProfile":null,"usedMilli":0,
         "usedMemoryMib":0,"exclusive":false,"pods":[]},
        {"index":3,"uuid":"GPU-3","model":"H100","memoryMib":80000,"computeMilli":1000,
         "healthy":false,"parentUuid":null,"migProfile":null,"usedMilli":0,
         "usedMemoryMib":0,"exclusive":false,"pods":[]}]}]
      """;

  private static final String ALLOCATIONS =
      """
      [{"node":"n1","gpuIndex":0,"uuid":"GPU-0","model":"H100","pod":"a/x","podUid":"u1",
        "container":"c1","computeMilli":250,"memoryMib":10000,"state":"BOUND"},
       {"node":"n1","gpuIndex":0,"uuid":"GPU-0","model":"H100","pod":"a/x","podUid":"u1",
        "container":"c2","computeMilli":250,"memoryMib":10000,"state":"BOUND"},
       {"node":"n1","gpuIndex":0,"uuid":"GPU-0","model":"H100","pod":"b/y","podUid":"u2",
        "container":"main","computeMilli":250,"memoryMib":10000,"state":"RESERVED"}]
      """;

  @Test
  void sumsAPodsContainersPerGpuAndKeepsCordonAndTheSummary() {
    JsonNode page = AllocationPage.of("7-1", MAPPER.readTree(NODES), MAPPER.readTree(ALLOCATIONS));

    assertThat(page.path("namespaces").toString()).isEqualTo("[\"a\",\"b\"]");
    assertThat(page.path("pods").toString()).isEqualTo("[[0,\"x\",0],[1,\"y\",1]]");
    assertThat(page.path("states").toString()).isEqualTo("[\"BOUND\",\"RESERVED\"]");
    JsonNode gpus = page.path("nodes").get(0).get(1);
    assertThat(gpus.get(0).get(8).toString()).isEqualTo("[0,500,20000,1,250,10000]");
    assertThat(gpus.get(1).get(7).asInt()).isEqualTo(AllocationPage.CORDONED);
    assertThat(gpus.get(1).get(9).path("cordonReason").asString()).isEqualTo("ECC");
    assertThat(gpus.get(3).get(7).asInt()).isEqualTo(AllocationPage.UNHEALTHY);

    JsonNode s = page.path("summary");
    // free: 250 on GPU-0, 1000 on GPU-2; the cordoned and the unhealthy GPU give nothing
    assertThat(s.path("freeMilli").asLong()).isEqualTo(1250);
    assertThat(s.path("unallocatedPct").asDouble()).isEqualTo(31.3);
    assertThat(s.path("idleGpus").asInt()).isEqualTo(1);
    assertThat(s.path("partlyUsedGpus").asInt()).isEqualTo(1);
    assertThat(s.path("freeOnPartlyUsedPct").asDouble()).isEqualTo(20.0);
    assertThat(s.path("cordonedGpus").asInt()).isEqualTo(1);
    assertThat(s.path("unhealthyGpus").asInt()).isEqualTo(1);
    assertThat(s.path("fragmentationPct").isNumber()).isTrue();
  }

  @Test
  void hasNoFragmentationWithoutPods() {
    JsonNode page = AllocationPage.of("1-1", MAPPER.readTree(NODES), MAPPER.readTree("[]"));
    assertThat(page.path("summary").path("fragmentationPct").isNull()).isTrue();
    assertThat(page.path("summary").path("pods").asInt()).isZero();
  }
}
