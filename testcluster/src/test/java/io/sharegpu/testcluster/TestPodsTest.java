package io.sharegpu.testcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestPodsTest {

  @Test
  void aShareIsAGpuRequestTheParserReadsWithItsModels() {
    Pod pod =
        TestPods.pod("train-1").namespace("ns").uid("u1").share(500, 8192).model("H100").build();

    ParsedRequest parsed = PodGpuRequestParser.parse(pod);
    assertThat(parsed).isInstanceOf(ParsedRequest.Valid.class);
    assertThat(((ParsedRequest.Valid) parsed).request().containers())
        .containsExactly(ContainerGpuRequest.share("main", 500, 8192));
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(ShareGpuAnnotations.GPU_MODELS, "H100");
    assertThat(pod.getSpec().getSchedulerName()).isEqualTo(ShareGpuAnnotations.SCHEDULER_NAME);
    assertThat(pod.getSpec().getContainers().get(0).getImage()).isEqualTo(TestPods.PAUSE_IMAGE);
    assertThat(pod.getSpec().getContainers().get(0).getResources().getRequests())
        .isEqualTo(pod.getSpec().getContainers().get(0).getResources().getLimits());
    assertThat(pod.getSpec().getNodeName()).isNull();
    assertThat(pod.getStatus()).isNull();
  }

  @Test
  void noMemoryMeansNoMemoryResourceAndTheImageAppliesToLaterContainers() {
    Pod pod = TestPods.pod("p").share(250, 0).image("busybox").container("side", 1000, 0).build();

    assertThat(pod.getSpec().getContainers().get(0).getResources().getLimits())
        .containsOnlyKeys(ShareGpuResources.GPU_MILLI)
        .containsEntry(ShareGpuResources.GPU_MILLI, new Quantity("250"));
    assertThat(pod.getSpec().getContainers())
        .extracting(c -> c.getImage())
        .containsExactly(TestPods.PAUSE_IMAGE, "busybox");
    assertThat(TestPods.gpuMilli(pod)).isEqualTo(250);
  }

  @Test
  void anAssignedPodIsBoundToTheAssignmentsNodeAndDecodesBack() {
    PodAssignment a =
        new PodAssignment(
            "h100", List.of(new ContainerAssignment("main", List.of("GPU-h100-1"), 40779, 500)));

    Pod pod =
        TestPods.pod("a")
            .share(500, 0)
            .assigned(a, Instant.parse("2026-12-01T00:00:00Z"))
            .priority(5)
            .phase("Running")
            .build();

    assertThat(pod.getSpec().getNodeName()).isEqualTo("h100");
    assertThat(pod.getSpec().getPriority()).isEqualTo(5);
    assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
    assertThat(TestPods.assignment(pod)).contains(a);
  }

  @Test
  void aPodWithoutAGpuRequestHasNoAssignment() {
    Pod pod = TestPods.pod("cpu").resourceVersion("7").deleting("2026-12-01T00:00:01Z").build();

    assertThat(TestPods.assignment(pod)).isEmpty();
    assertThat(pod.getMetadata().getDeletionTimestamp()).isEqualTo("2026-12-01T00:00:01Z");
    assertThat(pod.getMetadata().getResourceVersion()).isEqualTo("7");
  }
}
