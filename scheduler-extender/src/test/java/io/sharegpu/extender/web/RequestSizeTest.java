package io.sharegpu.extender.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.sharegpu.extender.Fixtures;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The request body limit has room for the largest filter call kube-scheduler makes: 5,000 candidate
 * names and a full Pod as the API server stores it. Prints the measured sizes (quoted in
 * docs/security.md).
 */
class RequestSizeTest {

  private final WireCodec codec = new WireCodec();

  /** A pod as a Deployment creates it: env, volumes, managed fields, status. */
  static Pod fullPod() {
    PodBuilder b =
        new PodBuilder(Fixtures.pod("team-research", "train-7d9f8b6c5d-x2k4q", uid(1), 500, 20480))
            .editMetadata()
            .withGenerateName("train-7d9f8b6c5d-")
            .withResourceVersion("123456789")
            .withCreationTimestamp("2026-12-05T08:00:00Z")
            .addToLabels(Map.of("app", "train", "pod-template-hash", "7d9f8b6c5d", "team", "r"))
            .addToAnnotations("sharegpu.io/gpu-models", "H100,A100")
            .addToAnnotations("kubectl.kubernetes.io/restartedAt", "2026-12-05T07:59:00Z")
            .addNewOwnerReference()
            .withApiVersion("apps/v1")
            .withKind("ReplicaSet")
            .withName("train-7d9f8b6c5d")
            .withUid(uid(2))
            .withController(true)
            .endOwnerReference()
            .endMetadata();
    for (int i = 0; i < 3; i++) {
      b.editMetadata()
          .addToManagedFields(
              new ManagedFieldsEntryBuilder()
                  .withManager(i == 0 ? "kube-controller-manager" : "kubectl")
                  .withOperation("Update")
                  .withApiVersion("v1")
                  .withTime("2026-12-05T08:00:00Z")
                  .withFieldsType("FieldsV1")
                  .withNewFieldsV1()
                  .addToAdditionalProperties(
                      "f:spec", Map.of("f:containers", Map.of("k:{\"name\":\"main\"}", bigMap(40))))
                  .endFieldsV1()
                  .build())
          .endMetadata();
    }
    b.editSpec()
        .withNodeSelector(Map.of("nvidia.com/gpu.present", "true"))
        .withServiceAccountName("trainer")
        .editFirstContainer()
        .withImage("registry.example.com/research/train:2026.12.05-3f9c1e2b")
        .withCommand("python", "-m", "train", "--config", "/etc/train/config.yaml")
        .endContainer()
        .endSpec();
    for (int i = 0; i < 20; i++) {
      b.editSpec()
          .editFirstContainer()
          .addNewEnv()
          .withName("TRAIN_SETTING_" + i)
          .withValue("value-of-setting-number-" + i)
          .endEnv()
          .endContainer()
          .endSpec();
    }
    for (int i = 0; i < 5; i++) {
      b.editSpec()
          .addNewVolume()
          .withName("data-" + i)
          .withNewPersistentVolumeClaim()
          .withClaimName("research-data-" + i)
          .endPersistentVolumeClaim()
          .endVolume()
          .editFirstContainer()
          .addNewVolumeMount()
          .withName("data-" + i)
          .withMountPath("/data/" + i)
          .endVolumeMount()
          .endContainer()
          .endSpec();
    }
    b.withNewStatus()
        .withPhase("Pending")
        .withQosClass("Burstable")
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("False")
        .withReason("Unschedulable")
        .withMessage("0/5000 nodes are available: 4990 Insufficient sharegpu.io/gpu-milli.")
        .endCondition()
        .endStatus();
    return b.build();
  }

  private static Map<String, Object> bigMap(int n) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      m.put("f:field" + i, Map.of());
    }
    return m;
  }

  private static String uid(int i) {
    return String.format("3f9c1e2b-%04d-4c7e-9d3b-2f1c0e9a7b11", i);
  }

  private byte[] filterBody(int nodes, int nameLength) {
    List<String> names = new ArrayList<>(nodes);
    for (int i = 0; i < nodes; i++) {
      String base =
          String.format(
              "ip-10-%d-%d-%d.us-west-2.compute.internal", i / 65536, i / 256 % 256, i % 256);
      names.add(
          nameLength <= base.length()
              ? base
              : base + "-" + "x".repeat(nameLength - base.length() - 1));
    }
    return codec.write(new ExtenderArgs(fullPod(), null, names)).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theLargestFilterCallFitsTheLimitWithRoomToSpare() {
    long limit = RequestLimitProperties.DEFAULT_MAX_BODY.toBytes();
    byte[] pod = codec.write(fullPod()).getBytes(StandardCharsets.UTF_8);
    byte[] typical = filterBody(5000, 0);
    byte[] worst = filterBody(5000, 253);
    long start = System.nanoTime();
    ExtenderArgs args = codec.readCheckedArgs(worst);
    long decodeMicros = (System.nanoTime() - start) / 1000;
    System.out.printf(
        "request sizes: full pod %d bytes; filter with 5,000 names of ~41 chars %d bytes;"
            + " with 5,000 names of 253 chars %d bytes (decoded and checked in %d us);"
            + " limit %d bytes%n",
        pod.length, typical.length, worst.length, decodeMicros, limit);
    assertThat(args.nodeNames()).hasSize(5000);
    assertThat((long) typical.length).isLessThan(limit / 4);
    assertThat((long) worst.length).isLessThan(limit / 2);
  }
}
