package io.sharegpu.extender.debug;

import static org.mockito.Mockito.mock;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.preempt.Preemption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/** The debug JSON tells, per GPU, whether it is cordoned and why; the other fields stay. */
class DebugControllerCordonTest {
  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final String XID = "Xid 79, card to be replaced";

  private MockMvc mvc;

  @BeforeEach
  void setUp() {
    ClusterFixture view = Fixtures.view("binpack");
    Fixtures.addNode(view, "n1", H100, 2, 81559);
    GPUNode g = Fixtures.gpuNode("n1", H100, 2, 81559);
    GPUNodeSpec spec = new GPUNodeSpec("n1");
    spec.setCordonedGpus(List.of(new GpuCordon(Fixtures.uuid("n1", 0), XID, null)));
    g.setSpec(spec);
    view.onGpuNode(g);
    view.withLedger(
        l -> {
          l.commit(
              new Allocation(
                  "ns/old",
                  "uid-old",
                  "n1",
                  List.of(
                      new ContainerGrant(
                          "main", List.of(new GpuGrant(Fixtures.uuid("n1", 0), 500, 1000)), 500)),
                  AllocationState.BOUND));
          return null;
        });
    mvc =
        MockMvcBuilders.standaloneSetup(
                new DebugController(
                    view.state(), mock(KubernetesClient.class), mock(Preemption.class)))
            .build();
  }

  @Test
  void nodesShowCordonedAndReason() throws Exception {
    mvc.perform(get("/debug/nodes/n1"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.gpus[0].cordoned").value(true))
        .andExpect(jsonPath("$.gpus[0].cordonReason").value(XID))
        .andExpect(jsonPath("$.gpus[0].usedMilli").value(500))
        .andExpect(jsonPath("$.gpus[0].pods[0]").value("ns/old"))
        .andExpect(jsonPath("$.gpus[1].cordoned").value(false))
        .andExpect(jsonPath("$.gpus[1].cordonReason").doesNotExist())
        .andExpect(jsonPath("$.gpus[1].healthy").value(true));
    mvc.perform(get("/debug/nodes")).andExpect(jsonPath("$[0].gpus[0].cordoned").value(true));
  }

  @Test
  void gpuAndAllocationsShowCordon() throws Exception {
    mvc.perform(get("/debug/gpus/" + Fixtures.uuid("n1", 0)))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.node").value("n1"))
        .andExpect(jsonPath("$.gpu.cordoned").value(true))
        .andExpect(jsonPath("$.gpu.cordonReason").value(XID));
    mvc.perform(get("/debug/allocations"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$[0].pod").value("ns/old"))
        .andExpect(jsonPath("$[0].state").value("BOUND"))
        .andExpect(jsonPath("$[0].cordoned").value(true))
        .andExpect(jsonPath("$[0].cordonReason").value(XID));
  }
}
