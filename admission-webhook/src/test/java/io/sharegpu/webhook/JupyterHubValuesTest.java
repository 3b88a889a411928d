package io.sharegpu.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.webhook.admission.AdmissionDecision;
import io.sharegpu.webhook.admission.PodAdmissionPolicy;
import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The profiles of examples/jupyterhub/values.yaml are valid requests the webhook injects into. */
class JupyterHubValuesTest {

  @ParameterizedTest
  @CsvSource({
    "gpu-quarter, 250, 10240, 500",
    "gpu-half, 500, 20480, 1000",
    "gpu-whole, 1000, 0, 1000"
  })
  void profileGivesAValidRequestThatTheWebhookInjectsInto(
      String slug, int milli, long memoryMib, int limitMilli) throws IOException {
    JupyterHubProfiles profiles =
        JupyterHubProfiles.read(TestCluster.repoRoot().resolve("examples/jupyterhub/values.yaml"));
    Pod pod = KubespawnerPods.pod("alice", "jhub", profiles.profile(slug));

    ParsedRequest parsed = PodGpuRequestParser.parse(pod);

    assertThat(parsed)
        .isEqualTo(
            new ParsedRequest.Valid(
                io.sharegpu.api.request.PodGpuRequest.of(
                    new ContainerGpuRequest("notebook", milli, memoryMib, limitMilli))));
    assertThat(profiles.profile(slug).schedulerName()).isEqualTo("sharegpu-scheduler");
    assertThat(PodAdmissionPolicy.withDefaults().decide(pod))
        .isInstanceOf(AdmissionDecision.Patched.class);
  }
}
