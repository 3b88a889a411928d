package io.sharegpu.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs the rendered chart on the real control plane (server-side apply, like {@code kubectl
 * apply --server-side}): every object must be accepted, and access reviews show what each
 * component's service account may and may not do. kube-scheduler runs with the rendered
 * configuration as its own service account and must win its leader-election Lease.
 */
class ChartInstallE2E {

  private static final Logger log = LoggerFactory.getLogger(ChartInstallE2E.class);
  private static final String NS = RenderedChart.NAMESPACE;
  private static final String ALT_RELEASE = "sgalt";
  private static final String ALT_NS = "sharegpu-alt";
  private static final String FIELD_MANAGER = "sharegpu-chart-e2e";
  private static final String REQUEUED_AT = "sharegpu.io/requeued-at";
  private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);
  private static final PatchContext STRATEGIC = PatchContext.of(PatchType.STRATEGIC_MERGE);
  private static final PatchContext JSON = PatchContext.of(PatchType.JSON);

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static RenderedChart chart;
  private static RenderedChart alt;

  @BeforeAll
  static void install() {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();

    // a second release with MPS and a user-supplied certificate, applied first; its webhook
    // configuration goes again at once so it does not intercept the main release's pods
    createNamespace(ALT_NS, Map.of());
    alt =
        RenderedChart.render(
            ALT_RELEASE, ALT_NS, List.of("mps.yaml", "webhook-user-cert.yaml"), Map.of());
    apply(alt);
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .withName(ALT_RELEASE + "-sharegpu-webhook")
        .delete();

    createNamespace(NS, Map.of());
    chart = RenderedChart.render();
    apply(chart);
  }

  @AfterAll
  static void removeWebhookConfiguration() {
    if (client != null) {
      client
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .withName("sharegpu-webhook")
          .delete();
    }
  }

  @Test
  void crdsAreEstablishedAndServed() {
    for (String crd : List.of("gpunodes.sharegpu.io", "sharepods.sharegpu.io")) {
      assertThat(
              client
                  .apiextensions()
                  .v1()
                  .customResourceDefinitions()
                  .withName(crd)
                  .get()
                  .getStatus()
                  .getConditions())
          .anySatisfy(
              c -> {
                assertThat(c.getType()).isEqualTo("Established");
                assertThat(c.getStatus()).isEqualTo("True");
              });
    }
    assertThat(
            client
                .genericKubernetesResources("sharegpu.io/v1alpha1", "SharePod")
                .inNamespace(NS)
                .list()
                .getItems())
        .isEmpty();
  }

  @Test
  void everyRenderedObjectIsStored() {
    for (RenderedChart rendered : List.of(chart, alt)) {
      for (HasMetadata object : rendered.objects()) {
        if (object instanceof MutatingWebhookConfiguration
            && object.getMetadata().getName().startsWith(ALT_RELEASE)) {
          continue; // deleted on purpose above
        }
        HasMetadata stored = client.resource(object).get();
        assertThat(stored)
            .as("%s/%s stored", object.getKind(), object.getMetadata().getName())
            .isNotNull();
        assertThat(stored.getMetadata().getManagedFields())
            .anySatisfy(f -> assertThat(f.getManager()).isEqualTo(FIELD_MANAGER));
      }
    }
    assertThat(chart.objects()).hasSizeGreaterThan(30);
  }

  @Test
  void deploymentsCreatePodsInTheReleaseNamespaceWhichTheWebhookSkips() {
    // kube-controller-manager creates the pods (no kubelet runs them); the webhook, whose service
    // has
    // no running pod, must not be asked about its own namespace or nothing could ever start.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .pods()
                            .inNamespace(NS)
                            .withLabel("app.kubernetes.io/component", "extender")
                            .list()
                            .getItems())
                    .hasSize(2));
    Pod pod =
        client
            .pods()
            .inNamespace(NS)
            .withLabel("app.kubernetes.io/component", "extender")
            .list()
            .getItems()
            .get(0);
    assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("sharegpu-extender");
  }

  @Test
  void webhookFailsClosedOutsideTheExcludedNamespacesAndHonoursTheOptOutLabel() {
    String plain = "chart-e2e-team";
    String optedOut = "chart-e2e-opted-out";
    createNamespace(plain, Map.of());
    createNamespace(optedOut, Map.of("sharegpu.io/webhook", "disabled"));
    // the webhook is registered but not running here: failurePolicy Fail refuses the pod
    assertThatThrownBy(() -> client.pods().inNamespace(plain).resource(pod("notebook")).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("pods.sharegpu.io");
    assertThat(client.pods().inNamespace(optedOut).resource(pod("notebook")).create()).isNotNull();
    assertThat(client.pods().inNamespace("kube-system").resource(pod("chart-e2e")).create())
        .isNotNull();
    client.pods().inNamespace("kube-system").withName("chart-e2e").delete();
  }

  @Test
  void extenderMayScheduleAndBindButNotDeleteOrReadSecrets() {
    String sa = "sharegpu-extender";
    assertAllowed(sa, "get", "", "nodes", null, null);
    assertAllowed(sa, "watch", "", "nodes", null, null);
    assertAllowed(sa, "list", "", "pods", null, null);
    assertAllowed(sa, "watch", "", "pods", "team-a", null);
    assertAllowed(sa, "create", "", "pods/binding", "team-a", null);
    assertAllowed(sa, "create", "", "bindings", "team-a", null);
    assertAllowed(sa, "list", "sharegpu.io", "gpunodes", null, null);
    assertAllowed(sa, "watch", "policy", "poddisruptionbudgets", null, null);
    assertDenied(sa, "delete", "policy", "poddisruptionbudgets", "team-a", null);
    assertAllowed(sa, "create", "", "events", "team-a", null);
    assertAllowed(sa, "patch", "events.k8s.io", "events", "team-a", null);
    assertAllowed(sa, "create", "coordination.k8s.io", "leases", NS, null);
    assertAllowed(sa, "get", "coordination.k8s.io", "leases", NS, "sharegpu-extender-bind");
    assertAllowed(sa, "update", "coordination.k8s.io", "leases", NS, "sharegpu-extender-bind");
    // fabric8's LeaderElector renews with PATCH
    assertAllowed(sa, "patch", "coordination.k8s.io", "leases", NS, "sharegpu-extender-bind");

    assertDenied(sa, "delete", "", "pods", "team-a", null);
    assertDenied(sa, "create", "", "pods", "team-a", null);
    assertDenied(sa, "update", "", "pods", "team-a", null);
    // patch is allowed, for one annotation only: the ValidatingAdmissionPolicy (tested below)
    assertAllowed(sa, "patch", "", "pods", "team-a", null);
    assertDenied(sa, "patch", "", "pods/status", "team-a", null);
    assertDenied(sa, "get", "", "secrets", NS, null);
    assertDenied(sa, "list", "", "secrets", null, null);
    assertDenied(sa, "patch", "", "nodes", null, null);
    assertDenied(sa, "update", "sharegpu.io", "gpunodes/status", null, null);
    assertDenied(sa, "update", "coordination.k8s.io", "leases", NS, "sharegpu-scheduler");
    assertDenied(
        sa, "update", "coordination.k8s.io", "leases", "kube-system", "sharegpu-extender-bind");
    assertDenied(sa, "create", "coordination.k8s.io", "leases", "kube-system", null);
    assertDenied(sa, "list", "sharegpu.io", "sharepods", null, null);
    assertNothingBroad(sa);
  }

  @Test
  void extenderImpersonatedCanListNodesButIsForbiddenSecretsAndPodDeletion() {
    try (KubernetesClient extender = impersonating(NS, "sharegpu-extender")) {
      assertThat(extender.nodes().list()).isNotNull();
      assertThat(selfReview(extender, "create", "", "pods/binding", "team-a")).isTrue();
      assertThat(selfReview(extender, "delete", "", "pods", "team-a")).isFalse();
      assertThat(selfReview(extender, "get", "", "secrets", NS)).isFalse();
      assertThatThrownBy(() -> extender.secrets().inNamespace(NS).list())
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
      assertThatThrownBy(
              () ->
                  extender
                      .pods()
                      .inNamespace(NS)
                      .withLabel("app.kubernetes.io/component", "webhook")
                      .delete())
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
    }
  }

  @Test
  void extenderMaySetOnlyTheRequeueAnnotationAndOnlyOnAWaitingPod() {
    String namespace = "chart-e2e-requeue";
    String policy = "sharegpu-extender-pod-writes";
    createNamespace(namespace, Map.of("sharegpu.io/webhook", "disabled"));
    // the extender's own token (what its pods mount), not impersonation: the policy matches on
    // request.userInfo.username
    try (KubernetesClient extender = asServiceAccount(NS, "sharegpu-extender")) {
      awaitPolicyInForce(extender, namespace, policy);
      client
          .pods()
          .inNamespace(namespace)
          .resource(
              new PodBuilder(pod("waiting"))
                  .editMetadata()
                  .addToLabels("app", "notebook")
                  .addToAnnotations("team", "a")
                  .endMetadata()
                  .build())
          .create();
      PodResource waiting = extender.pods().inNamespace(namespace).withName("waiting");

      // set (as WaitingPods does, a JSON merge patch), change and remove it, in each patch type
      waiting.patch(MERGE, requeuedAt("\"2026-12-04T18:00:00Z\""));
      assertThat(annotations(namespace, "waiting"))
          .containsOnly(Map.entry("team", "a"), Map.entry(REQUEUED_AT, "2026-12-04T18:00:00Z"));
      waiting.patch(STRATEGIC, requeuedAt("\"2026-12-04T18:00:05Z\""));
      assertThat(annotations(namespace, "waiting"))
          .containsOnly(Map.entry("team", "a"), Map.entry(REQUEUED_AT, "2026-12-04T18:00:05Z"));
      waiting.patch(
          JSON,
          "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/sharegpu.io~1requeued-at\"}]");
      assertThat(annotations(namespace, "waiting")).containsOnly(Map.entry("team", "a"));
      String resourceVersion =
          waiting
              .patch(MERGE, requeuedAt("\"2026-12-04T18:00:10Z\""))
              .getMetadata()
              .getResourceVersion();

      // every other change is refused; each is a real change, so none passes as a no-op
      Map<String, PatchContext> forbidden = new LinkedHashMap<>();
      // (an assignment annotation is refused by the assignment policy too: tested on its own)
      forbidden.put("{\"metadata\":{\"annotations\":{\"sharegpu.io/gpu-uuids\":\"G\"}}}", MERGE);
      forbidden.put("{\"metadata\":{\"annotations\":{\"team\":\"b\"}}}", MERGE);
      forbidden.put("{\"metadata\":{\"annotations\":{\"team\":null}}}", STRATEGIC);
      forbidden.put(
          "{\"metadata\":{\"annotations\":{\"sharegpu.io/requeued-at\":\"2026-12-04T18:00:15Z\","
              + "\"a\":\"b\"}}}",
          MERGE);
      forbidden.put("[{\"op\":\"add\",\"path\":\"/metadata/labels/app\",\"value\":\"x\"}]", JSON);
      forbidden.put("{\"metadata\":{\"labels\":{\"queue\":\"fast\"}}}", MERGE);
      forbidden.put("{\"metadata\":{\"labels\":{\"app\":null}}}", MERGE);
      forbidden.put("{\"metadata\":{\"finalizers\":[\"example.com/keep\"]}}", MERGE);
      forbidden.put("{\"spec\":{\"activeDeadlineSeconds\":5}}", STRATEGIC);
      forbidden.put(
          "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
              + "\"name\":\"owner\",\"uid\":\"6f1c9c40-0000-4000-8000-000000000001\"}]}}",
          MERGE);
      forbidden.forEach(
          (patch, type) ->
              assertRefusedByPolicy(
                  () -> waiting.patch(type, patch),
                  policy,
                  "may only set the sharegpu.io/requeued-at annotation"));
      // status is not the policy's to refuse: RBAC grants no pods/status
      assertThatThrownBy(
              () ->
                  waiting
                      .subresource("status")
                      .patch(MERGE, "{\"status\":{\"message\":\"requeued\"}}"))
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
      Pod unchanged = client.pods().inNamespace(namespace).withName("waiting").get();
      assertThat(unchanged.getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
      assertThat(unchanged.getMetadata().getLabels()).containsOnly(Map.entry("app", "notebook"));
      assertThat(unchanged.getMetadata().getAnnotations())
          .containsOnly(Map.entry("team", "a"), Map.entry(REQUEUED_AT, "2026-12-04T18:00:10Z"));
      assertThat(unchanged.getSpec().getActiveDeadlineSeconds()).isNull();

      // bound (here by the admin): the extender may not touch it any more, not even its annotation
      client
          .bindings()
          .inNamespace(namespace)
          .resource(
              new BindingBuilder()
                  .withNewMetadata()
                  .withName("waiting")
                  .endMetadata()
                  .withNewTarget()
                  .withKind("Node")
                  .withName("gpu-node-1")
                  .endTarget()
                  .build())
          .create();
      for (String value : List.of("\"2026-12-04T18:00:20Z\"", "null")) {
        assertRefusedByPolicy(
            () -> waiting.patch(MERGE, requeuedAt(value)), policy, "pods that are not bound yet");
      }
    }
    Pod bound = client.pods().inNamespace(namespace).withName("waiting").get();
    assertThat(bound.getSpec().getNodeName()).isEqualTo("gpu-node-1");
    assertThat(bound.getMetadata().getAnnotations())
        .containsOnly(Map.entry("team", "a"), Map.entry(REQUEUED_AT, "2026-12-04T18:00:10Z"));
  }

  @Test
  void extenderImpersonatedBindsAPodWithItsAnnotationsAsItsBinderDoes() {
    String namespace = "chart-e2e-bind";
    createNamespace(namespace, Map.of("sharegpu.io/webhook", "disabled"));
    Pod created = client.pods().inNamespace(namespace).resource(pod("train")).create();
    try (KubernetesClient extender = impersonating(NS, "sharegpu-extender")) {
      // The binder's one write: the assignment annotations travel in the Binding's metadata, with
      // the pod's uid and resourceVersion as preconditions. Then it may not change the bound pod.
      extender
          .bindings()
          .inNamespace(namespace)
          .resource(
              new BindingBuilder()
                  .withNewMetadata()
                  .withName("train")
                  .withUid(created.getMetadata().getUid())
                  .withResourceVersion(created.getMetadata().getResourceVersion())
                  .addToAnnotations("sharegpu.io/assigned-gpus", "GPU-e2e")
                  .endMetadata()
                  .withNewTarget()
                  .withKind("Node")
                  .withName("gpu-node-1")
                  .endTarget()
                  .build())
          .create();
      assertThatThrownBy(
              () ->
                  extender
                      .pods()
                      .inNamespace(namespace)
                      .withName("train")
                      .edit(
                          p ->
                              new PodBuilder(p)
                                  .editMetadata()
                                  .addToAnnotations("sharegpu.io/assigned-gpus", "GPU-other")
                                  .endMetadata()
                                  .build()))
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
    }
    Pod bound = client.pods().inNamespace(namespace).withName("train").get();
    assertThat(bound.getSpec().getNodeName()).isEqualTo("gpu-node-1");
    assertThat(bound.getMetadata().getAnnotations())
        .containsEntry("sharegpu.io/assigned-gpus", "GPU-e2e");
  }

  @Test
  void noPodUpdateMayAddChangeOrRemoveAnAssignmentAnnotation() {
    String namespace = "chart-e2e-assignment";
    // both releases installed here hold the same policy; either may be the one that answers
    String policy = "sharegpu-assignment";
    String refused = "no update may add, change or remove them";
    createNamespace(namespace, Map.of("sharegpu.io/webhook", "disabled"));
    awaitAssignmentFrozen(namespace, policy);

    client
        .pods()
        .inNamespace(namespace)
        .resource(
            new PodBuilder(pod("train"))
                .editMetadata()
                .addToAnnotations("team", "a")
                .endMetadata()
                .build())
        .create();
    PodResource train = client.pods().inNamespace(namespace).withName("train");
    // not bound yet: the assignment cannot be written ahead of the bind either
    assertRefusedByAssignmentPolicy(
        () -> train.patch(MERGE, annotation("sharegpu.io/assigned-gpus", "\"GPU-early\"")),
        policy,
        refused);

    // the bind writes it: a Binding is a create of pods/binding, not a pod update
    client
        .bindings()
        .inNamespace(namespace)
        .resource(
            new BindingBuilder()
                .withNewMetadata()
                .withName("train")
                .addToAnnotations("sharegpu.io/assigned-gpus", "GPU-e2e")
                .addToAnnotations("sharegpu.io/assigned-memory-mib", "10240")
                .addToAnnotations("sharegpu.io/mps-active-thread-percentage", "50")
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withName("gpu-node-1")
                .endTarget()
                .build())
        .create();
    Map<String, String> assigned = annotations(namespace, "train");
    assertThat(assigned)
        .containsEntry("sharegpu.io/assigned-gpus", "GPU-e2e")
        .containsEntry("sharegpu.io/mps-active-thread-percentage", "50");

    // the admin (system:masters) is held to it too, in every patch type
    for (PatchContext type : List.of(MERGE, STRATEGIC)) {
      assertRefusedByAssignmentPolicy(
          () -> train.patch(type, annotation("sharegpu.io/assigned-gpus", "\"GPU-other\"")),
          policy,
          refused);
      assertRefusedByAssignmentPolicy(
          () -> train.patch(type, annotation("sharegpu.io/assigned-memory-mib", "null")),
          policy,
          refused);
      assertRefusedByAssignmentPolicy(
          () -> train.patch(type, annotation("sharegpu.io/assigned-gpus.main", "\"GPU-x\"")),
          policy,
          refused);
      assertRefusedByAssignmentPolicy(
          () -> train.patch(type, annotation("sharegpu.io/mps-pinned-mem-limit", "\"0=99999M\"")),
          policy,
          refused);
    }
    assertRefusedByAssignmentPolicy(
        () ->
            train.edit(
                p ->
                    new PodBuilder(p)
                        .editMetadata()
                        .withAnnotations(Map.of())
                        .endMetadata()
                        .build()),
        policy,
        refused);
    assertThat(annotations(namespace, "train")).isEqualTo(assigned);

    // everything else about the pod's metadata stays free
    train.patch(MERGE, annotation("team", "\"b\""));
    train.patch(MERGE, "{\"metadata\":{\"labels\":{\"app\":\"trainer\"}}}");
    Pod after = train.get();
    assertThat(after.getMetadata().getAnnotations())
        .containsEntry("team", "b")
        .containsEntry("sharegpu.io/assigned-gpus", "GPU-e2e")
        .containsEntry("sharegpu.io/assigned-memory-mib", "10240");
    assertThat(after.getMetadata().getLabels()).containsEntry("app", "trainer");
  }

  @Test
  void nodeAgentImpersonatedPublishesItsNodeCapacityAndGpuNode() {
    String node = "chart-e2e-gpu-node";
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
        .create();
    try (KubernetesClient agent = impersonating(NS, "sharegpu-node-agent")) {
      agent
          .nodes()
          .withName(node)
          .editStatus(
              n ->
                  new NodeBuilder(n)
                      .editOrNewStatus()
                      .addToCapacity("sharegpu.io/gpu-milli", new Quantity("1000"))
                      .addToAllocatable("sharegpu.io/gpu-milli", new Quantity("1000"))
                      .endStatus()
                      .build());
      var gpuNodes = agent.genericKubernetesResources("sharegpu.io/v1alpha1", "GPUNode");
      gpuNodes
          .resource(
              new GenericKubernetesResourceBuilder()
                  .withApiVersion("sharegpu.io/v1alpha1")
                  .withKind("GPUNode")
                  .withNewMetadata()
                  .withName(node)
                  .endMetadata()
                  .addToAdditionalProperties("spec", Map.of("nodeName", node))
                  .build())
          .create();
      gpuNodes
          .withName(node)
          .editStatus(
              g -> {
                g.setAdditionalProperty(
                    "status",
                    Map.of("driverVersion", "550.54.15", "enforcement", "none", "gpuCount", 1));
                return g;
              });
      assertThat(agent.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems())
          .isEmpty();
      assertThatThrownBy(() -> gpuNodes.withName(node).delete())
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
    }
    assertThat(client.nodes().withName(node).get().getStatus().getAllocatable())
        .containsKey("sharegpu.io/gpu-milli");
    assertThat(
            client
                .genericKubernetesResources("sharegpu.io/v1alpha1", "GPUNode")
                .withName(node)
                .get()
                .getAdditionalProperties()
                .get("status")
                .toString())
        .contains("550.54.15");
  }

  @Test
  void controllerImpersonatedCreatesAndDeletesPodsButCannotBindThem() {
    String namespace = "chart-e2e-controller";
    createNamespace(namespace, Map.of("sharegpu.io/webhook", "disabled"));
    try (KubernetesClient controller = impersonating(NS, "sharegpu-controller")) {
      controller.pods().inNamespace(namespace).resource(pod("shp-pod")).create();
      assertThat(
              controller
                  .genericKubernetesResources("sharegpu.io/v1alpha1", "SharePod")
                  .inAnyNamespace()
                  .list()
                  .getItems())
          .isEmpty();
      assertThatThrownBy(
              () ->
                  controller
                      .bindings()
                      .inNamespace(namespace)
                      .resource(
                          new BindingBuilder()
                              .withNewMetadata()
                              .withName("shp-pod")
                              .endMetadata()
                              .withNewTarget()
                              .withKind("Node")
                              .withName("gpu-node-1")
                              .endTarget()
                              .build())
                      .create())
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
      controller.pods().inNamespace(namespace).withName("shp-pod").delete();
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.pods().inNamespace(namespace).withName("shp-pod").get() == null);
  }

  @Test
  void schedulerHasKubeSchedulerRightsAndItsOwnLease() {
    String sa = "sharegpu-scheduler";
    assertAllowed(sa, "create", "", "pods/binding", "team-a", null);
    assertAllowed(sa, "list", "", "nodes", null, null);
    assertAllowed(sa, "watch", "", "pods", null, null);
    assertAllowed(sa, "list", "storage.k8s.io", "csinodes", null, null);
    assertAllowed(sa, "create", "coordination.k8s.io", "leases", NS, null);
    assertAllowed(sa, "get", "coordination.k8s.io", "leases", NS, "sharegpu-scheduler");
    assertAllowed(sa, "update", "coordination.k8s.io", "leases", NS, "sharegpu-scheduler");
    assertAllowed(sa, "get", "", "configmaps", "kube-system", "extension-apiserver-authentication");
    assertAllowed(sa, "create", "authentication.k8s.io", "tokenreviews", null, null);
    assertAllowed(sa, "create", "authorization.k8s.io", "subjectaccessreviews", null, null);

    assertDenied(sa, "get", "", "secrets", NS, null);
    assertDenied(sa, "update", "coordination.k8s.io", "leases", NS, "sharegpu-extender-bind");
    assertDenied(sa, "get", "", "configmaps", "kube-system", "kube-root-ca.crt");
    assertDenied(sa, "create", "apps", "deployments", NS, null);
    assertDenied(sa, "delete", "", "nodes", null, null);
    assertDenied(sa, "list", "sharegpu.io", "sharepods", null, null);
    assertNothingBroad(sa);
  }

  @Test
  void controllerManagesSharePodPodsAndStatusOnly() {
    String sa = "sharegpu-controller";
    assertAllowed(sa, "list", "sharegpu.io", "sharepods", null, null);
    assertAllowed(sa, "watch", "sharegpu.io", "sharepods", "team-a", null);
    assertAllowed(sa, "patch", "sharegpu.io", "sharepods/status", "team-a", null);
    assertAllowed(sa, "update", "sharegpu.io", "sharepods/status", "team-a", null);
    assertAllowed(sa, "create", "", "pods", "team-a", null);
    assertAllowed(sa, "delete", "", "pods", "team-a", null);
    assertAllowed(sa, "list", "sharegpu.io", "gpunodes", null, null);
    assertAllowed(sa, "create", "", "events", "team-a", null);
    assertAllowed(sa, "list", "", "events", null, null);
    assertAllowed(sa, "watch", "", "events", "team-a", null);
    // leader election: its own Lease in the release namespace, as fabric8's elector uses it
    assertAllowed(sa, "create", "coordination.k8s.io", "leases", NS, null);
    assertAllowed(sa, "get", "coordination.k8s.io", "leases", NS, "sharegpu-controller");
    assertAllowed(sa, "update", "coordination.k8s.io", "leases", NS, "sharegpu-controller");
    assertAllowed(sa, "patch", "coordination.k8s.io", "leases", NS, "sharegpu-controller");

    assertDenied(sa, "update", "coordination.k8s.io", "leases", NS, "sharegpu-extender-bind");
    assertDenied(sa, "update", "coordination.k8s.io", "leases", NS, "sharegpu-scheduler");
    assertDenied(sa, "delete", "coordination.k8s.io", "leases", NS, "sharegpu-controller");
    assertDenied(sa, "create", "coordination.k8s.io", "leases", "team-a", null);
    assertDenied(sa, "update", "sharegpu.io", "sharepods", "team-a", null);
    assertDenied(sa, "delete", "sharegpu.io", "sharepods", "team-a", null);
    assertDenied(sa, "patch", "", "pods", "team-a", null);
    assertDenied(sa, "create", "", "pods/binding", "team-a", null);
    assertDenied(sa, "create", "", "bindings", "team-a", null);
    assertDenied(sa, "get", "", "secrets", "team-a", null);
    assertDenied(sa, "update", "sharegpu.io", "gpunodes", null, null);
    assertNothingBroad(sa);
  }

  @Test
  void nodeAgentWritesNodesAndGpuNodesOnly() {
    String sa = "sharegpu-node-agent";
    assertAllowed(sa, "get", "", "nodes", null, "gpu-node-1");
    assertAllowed(sa, "patch", "", "nodes", null, "gpu-node-1");
    assertAllowed(sa, "patch", "", "nodes/status", null, "gpu-node-1");
    assertAllowed(sa, "create", "sharegpu.io", "gpunodes", null, null);
    assertAllowed(sa, "update", "sharegpu.io", "gpunodes", null, "gpu-node-1");
    assertAllowed(sa, "watch", "sharegpu.io", "gpunodes", null, null);
    assertAllowed(sa, "patch", "sharegpu.io", "gpunodes/status", null, "gpu-node-1");
    assertAllowed(sa, "list", "", "pods", null, null);
    assertAllowed(sa, "watch", "", "pods", null, null);

    assertAllowed(sa, "watch", "", "nodes", null, "gpu-node-1");

    assertDenied(sa, "delete", "", "nodes", null, "gpu-node-1");
    assertDenied(sa, "update", "", "nodes", null, "gpu-node-1");
    assertDenied(sa, "delete", "sharegpu.io", "gpunodes", null, "gpu-node-1");
    assertDenied(sa, "get", "", "pods", "team-a", "notebook");
    assertDenied(sa, "create", "", "pods", "team-a", null);
    assertDenied(sa, "get", "", "secrets", NS, null);
    assertDenied(sa, "list", "sharegpu.io", "sharepods", null, null);
    assertNothingBroad(sa);
  }

  @Test
  void webhookAndMpsDaemonMayCallNothing() {
    for (String[] sa :
        List.of(
            new String[] {NS, "sharegpu-webhook"},
            new String[] {ALT_NS, ALT_RELEASE + "-sharegpu-mps-daemon"},
            new String[] {ALT_NS, ALT_RELEASE + "-sharegpu-webhook"})) {
      assertThat(review(sa[0], sa[1], "list", "", "pods", null, null)).as(sa[1]).isFalse();
      assertThat(review(sa[0], sa[1], "get", "", "secrets", sa[0], null)).as(sa[1]).isFalse();
      assertThat(review(sa[0], sa[1], "get", "", "configmaps", sa[0], null)).as(sa[1]).isFalse();
      assertThat(review(sa[0], sa[1], "list", "", "nodes", null, null)).as(sa[1]).isFalse();
    }
  }

  @Test
  void kubeSchedulerRunsTheRenderedConfigAsItsServiceAccountAndWinsItsLease(@TempDir Path tmp)
      throws Exception {
    // the rendered KubeSchedulerConfiguration, with a kubeconfig holding the scheduler's own token
    String token =
        client
            .serviceAccounts()
            .inNamespace(NS)
            .withName("sharegpu-scheduler")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Path kubeconfig = tmp.resolve("scheduler.kubeconfig");
    Files.writeString(kubeconfig, tokenKubeconfig(token));
    String rendered =
        chart.get(ConfigMap.class, "sharegpu-scheduler").getData().get("scheduler-config.yaml");
    // the extender's tlsConfig reads the client certificate Secret's files, mounted in the pod at
    // /etc/sharegpu/extender-client: here, the rendered Secret written to a folder
    Path clientTls = Files.createDirectories(tmp.resolve("extender-client"));
    chart
        .get(Secret.class, "sharegpu-scheduler-extender-client")
        .getData()
        .forEach(
            (key, value) -> {
              try {
                Files.write(clientTls.resolve(key), Base64.getDecoder().decode(value));
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    assertThat(rendered).contains("certFile: /etc/sharegpu/extender-client/tls.crt");
    rendered = rendered.replace("/etc/sharegpu/extender-client", clientTls.toString());
    Path config = tmp.resolve("scheduler-config.yaml");
    Files.writeString(config, rendered + "clientConnection:\n  kubeconfig: " + kubeconfig + "\n");

    int port = Ports.free();
    Path logFile = tmp.resolve("kube-scheduler.log");
    Process scheduler =
        new ProcessBuilder(
                binDir().resolve("kube-scheduler").toString(),
                "--config=" + config,
                "--authentication-kubeconfig=" + kubeconfig,
                "--authorization-kubeconfig=" + kubeconfig,
                "--bind-address=127.0.0.1",
                "--secure-port=" + port,
                "--v=2")
            .redirectErrorStream(true)
            .redirectOutput(logFile.toFile())
            .start();
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                assertThat(scheduler.isAlive())
                    .as("kube-scheduler exited: %s", tail(logFile))
                    .isTrue();
                Lease lease = client.leases().inNamespace(NS).withName("sharegpu-scheduler").get();
                assertThat(lease).as("lease; log: %s", tail(logFile)).isNotNull();
                assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();
              });
      String schedulerLog = Files.readString(logFile, StandardCharsets.UTF_8);
      assertThat(schedulerLog)
          .doesNotContain("is forbidden")
          .doesNotContain("Unable to get configmap/extension-apiserver-authentication");
      log.info("kube-scheduler ran as sharegpu-scheduler and holds its Lease");
    } finally {
      scheduler.destroy();
      if (!scheduler.waitFor(20, TimeUnit.SECONDS)) {
        scheduler.destroyForcibly();
      }
    }
  }

  @Test
  void helmInstallUpgradeAndUninstallKeepTheWebhookCertificateAndAddServiceMonitors() {
    // the Prometheus Operator's API appears: helm now renders ServiceMonitors (Capabilities)
    cluster.applyCrds(TestCluster.repoRoot().resolve("charts/src/test/resources/crds"));
    String release = "sghelm";
    String namespace = "sharegpu-helm";
    Path kubeconfig = cluster.kubeconfig();
    try {
      // Ignore with a short timeout: this release's webhook must not hold up the other tests' pods
      Release installed =
          new Helm(RenderedChart.chartDir())
              .install()
              .withName(release)
              .withNamespace(namespace)
              .createNamespace()
              .withKubeConfig(kubeconfig)
              .set("webhook.failurePolicy", "Ignore")
              .set("webhook.timeoutSeconds", 1)
              .call();
      assertThat(installed.getStatus()).isEqualTo("deployed");
      // helm creates the policy last (a kind it does not sort); it holds this release's extender
      String probes = "chart-e2e-helm-requeue";
      createNamespace(probes, Map.of("sharegpu.io/webhook", "disabled"));
      try (KubernetesClient extender = asServiceAccount(namespace, "sghelm-sharegpu-extender")) {
        awaitPolicyInForce(extender, probes, "sghelm-sharegpu-extender-pod-writes");
      }
      assertThat(
              client
                  .genericKubernetesResources("monitoring.coreos.com/v1", "ServiceMonitor")
                  .inNamespace(namespace)
                  .list()
                  .getItems())
          .extracting(m -> m.getMetadata().getName())
          .containsExactlyInAnyOrder(
              "sghelm-sharegpu-extender",
              "sghelm-sharegpu-controller",
              "sghelm-sharegpu-webhook",
              "sghelm-sharegpu-node-agent");
      Secret before =
          client.secrets().inNamespace(namespace).withName("sghelm-sharegpu-webhook-tls").get();
      Secret extenderBefore =
          client.secrets().inNamespace(namespace).withName("sghelm-sharegpu-extender-tls").get();
      Secret schedulerClientBefore =
          client
              .secrets()
              .inNamespace(namespace)
              .withName("sghelm-sharegpu-scheduler-extender-client")
              .get();
      assertThat(extenderBefore.getData().get("ca.crt"))
          .isEqualTo(schedulerClientBefore.getData().get("ca.crt"));
      assertThat(client.network().networkPolicies().inNamespace(namespace).list().getItems())
          .extracting(p -> p.getMetadata().getName())
          .containsExactlyInAnyOrder("sghelm-sharegpu-extender", "sghelm-sharegpu-webhook");

      Release upgraded =
          new Helm(RenderedChart.chartDir())
              .upgrade()
              .withName(release)
              .withNamespace(namespace)
              .withKubeConfig(kubeconfig)
              .set("webhook.failurePolicy", "Ignore")
              .set("webhook.timeoutSeconds", 1)
              .set("extender.replicas", 3)
              .call();
      assertThat(upgraded.getRevision()).isEqualTo("2");
      Secret after =
          client.secrets().inNamespace(namespace).withName("sghelm-sharegpu-webhook-tls").get();
      // lookup kept the generated certificate: running pods and the webhook's caBundle stay valid
      assertThat(after.getData()).isEqualTo(before.getData());
      // and the extender's mutual TLS: kube-scheduler and the extender keep trusting each other
      assertThat(
              client
                  .secrets()
                  .inNamespace(namespace)
                  .withName("sghelm-sharegpu-extender-tls")
                  .get()
                  .getData())
          .isEqualTo(extenderBefore.getData());
      assertThat(
              client
                  .secrets()
                  .inNamespace(namespace)
                  .withName("sghelm-sharegpu-scheduler-extender-client")
                  .get()
                  .getData())
          .isEqualTo(schedulerClientBefore.getData());
      assertThat(
              client
                  .admissionRegistration()
                  .v1()
                  .mutatingWebhookConfigurations()
                  .withName("sghelm-sharegpu-webhook")
                  .get()
                  .getWebhooks()
                  .get(0)
                  .getClientConfig()
                  .getCaBundle())
          .isEqualTo(before.getData().get("ca.crt"));
      assertThat(
              client
                  .apps()
                  .deployments()
                  .inNamespace(namespace)
                  .withName("sghelm-sharegpu-extender")
                  .get()
                  .getSpec()
                  .getReplicas())
          .isEqualTo(3);
    } finally {
      Helm.uninstall(release)
          .withNamespace(namespace)
          .withKubeConfig(kubeconfig)
          .ignoreNotFound()
          .call();
    }
    assertThat(
            client
                .admissionRegistration()
                .v1()
                .mutatingWebhookConfigurations()
                .withName("sghelm-sharegpu-webhook")
                .get())
        .isNull();
    assertThat(client.rbac().clusterRoles().withName("sghelm-sharegpu-extender").get()).isNull();
    // CRDs stay (Helm never deletes crds/), so SharePods and GPUNodes survive an uninstall
    assertThat(
            client
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("sharepods.sharegpu.io")
                .get())
        .isNotNull();
  }

  // ---------------------------------------------------------------------------------------------

  private static void apply(RenderedChart rendered) {
    for (HasMetadata object : rendered.objects()) {
      try {
        client.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
      } catch (KubernetesClientException e) {
        throw new AssertionError(
            "the API server refused "
                + object.getKind()
                + "/"
                + object.getMetadata().getName()
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  private static void createNamespace(String name, Map<String, String> labels) {
    Namespace namespace =
        new NamespaceBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(labels)
            .endMetadata()
            .build();
    client.resource(namespace).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
  }

  private static Pod pod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("sharegpu-scheduler")
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .build();
  }

  private static boolean review(
      String namespace,
      String serviceAccount,
      String verb,
      String group,
      String resource,
      String resourceNamespace,
      String name) {
    SubjectAccessReview review =
        new SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser("system:serviceaccount:" + namespace + ":" + serviceAccount)
            .withGroups(
                "system:serviceaccounts",
                "system:serviceaccounts:" + namespace,
                "system:authenticated")
            .withResourceAttributes(attributes(verb, group, resource, resourceNamespace, name))
            .endSpec()
            .build();
    return client
        .authorization()
        .v1()
        .subjectAccessReview()
        .create(review)
        .getStatus()
        .getAllowed();
  }

  private static ResourceAttributes attributes(
      String verb, String group, String resource, String namespace, String name) {
    String[] parts = resource.split("/", 2);
    return new ResourceAttributesBuilder()
        .withVerb(verb)
        .withGroup(group)
        .withResource(parts[0])
        .withSubresource(parts.length > 1 ? parts[1] : null)
        .withNamespace(namespace)
        .withName(name)
        .build();
  }

  private static void assertAllowed(
      String sa, String verb, String group, String resource, String namespace, String name) {
    assertThat(review(NS, sa, verb, group, resource, namespace, name))
        .as("%s may %s %s/%s in %s (%s)", sa, verb, group, resource, namespace, name)
        .isTrue();
  }

  private static void assertDenied(
      String sa, String verb, String group, String resource, String namespace, String name) {
    assertThat(review(NS, sa, verb, group, resource, namespace, name))
        .as("%s must not %s %s/%s in %s (%s)", sa, verb, group, resource, namespace, name)
        .isFalse();
  }

  /** No component may act on arbitrary objects: the usual escalation paths are closed. */
  private static void assertNothingBroad(String sa) {
    assertDenied(sa, "*", "*", "*", null, null);
    assertDenied(sa, "create", "rbac.authorization.k8s.io", "clusterrolebindings", null, null);
    assertDenied(sa, "escalate", "rbac.authorization.k8s.io", "clusterroles", null, null);
    assertDenied(sa, "impersonate", "", "serviceaccounts", null, null);
    assertDenied(sa, "create", "", "serviceaccounts/token", NS, null);
    assertDenied(sa, "create", "", "pods/exec", NS, null);
    assertDenied(sa, "delete", "apiextensions.k8s.io", "customresourcedefinitions", null, null);
    assertDenied(
        sa, "patch", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", null, null);
  }

  /**
   * Waits until the API server enforces {@code policy} on {@code as}, at most 30 s. An API server
   * loads ValidatingAdmissionPolicies and their bindings through informers and recompiles them
   * every second, so for about a second after they are created the writes they forbid are admitted.
   * The probe changes a label of a pod of its own to a new value every time: a probe admitted
   * before the policy holds must not turn the next ones into no-op patches (which the policy
   * rightly admits, nothing changes), and the pod under test is never touched. Only a 403 naming
   * the policy ends the wait; RBAC allowing the patch is checked first, so no other refusal can
   * pass for it.
   */
  private static void awaitPolicyInForce(KubernetesClient as, String namespace, String policy) {
    String probe = "probe-" + policy;
    assertThat(
            as.authorization()
                .v1()
                .selfSubjectAccessReview()
                .create(
                    new SelfSubjectAccessReviewBuilder()
                        .withNewSpec()
                        .withResourceAttributes(attributes("patch", "", "pods", namespace, probe))
                        .endSpec()
                        .build())
                .getStatus()
                .getAllowed())
        .as("RBAC lets the probe patch pods in %s", namespace)
        .isTrue();
    client.pods().inNamespace(namespace).resource(pod(probe)).create();
    AtomicInteger tries = new AtomicInteger();
    long start = System.nanoTime();
    await(policy + " refuses a label change on " + namespace + "/" + probe)
        .atMost(Duration.ofSeconds(30))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              try {
                as.pods()
                    .inNamespace(namespace)
                    .withName(probe)
                    .patch(
                        MERGE,
                        "{\"metadata\":{\"labels\":{\"probe\":\""
                            + tries.incrementAndGet()
                            + "\"}}}");
                return false;
              } catch (KubernetesClientException e) {
                if (e.getCode() == 403 && e.getMessage().contains(policyDenial(policy))) {
                  return true;
                }
                throw e;
              }
            });
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    log.info("{} in force after {} ms ({} probes)", policy, took.toMillis(), tries.get());
    client.pods().inNamespace(namespace).withName(probe).withGracePeriod(0).delete();
  }

  private static String policyDenial(String policy) {
    return "ValidatingAdmissionPolicy '"
        + policy
        + "' with binding '"
        + policy
        + "' denied request";
  }

  private static void assertRefusedByPolicy(ThrowingCallable write, String policy, String message) {
    assertThatThrownBy(write)
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403))
        .hasMessageContaining(policyDenial(policy))
        .hasMessageContaining(message);
  }

  /**
   * Waits until the assignment policy refuses a change of an assignment annotation on a probe pod
   * (an API server enforces a new policy about a second after it and its binding exist).
   */
  private static void awaitAssignmentFrozen(String namespace, String policy) {
    String probe = "probe-" + policy;
    client
        .pods()
        .inNamespace(namespace)
        .resource(
            new PodBuilder(pod(probe))
                .editMetadata()
                .addToAnnotations("sharegpu.io/assigned-gpus", "GPU-probe")
                .endMetadata()
                .build())
        .create();
    AtomicInteger tries = new AtomicInteger();
    await(policy + " refuses a change of " + namespace + "/" + probe + "'s assignment")
        .atMost(Duration.ofSeconds(30))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              try {
                client
                    .pods()
                    .inNamespace(namespace)
                    .withName(probe)
                    .patch(
                        MERGE,
                        annotation(
                            "sharegpu.io/assigned-gpus",
                            "\"GPU-probe-" + tries.incrementAndGet() + "\""));
                return false;
              } catch (KubernetesClientException e) {
                if (e.getCode() == 403 && deniedByAssignmentPolicy(e.getMessage(), policy)) {
                  return true;
                }
                throw e;
              }
            });
    client.pods().inNamespace(namespace).withName(probe).withGracePeriod(0).delete();
  }

  private static void assertRefusedByAssignmentPolicy(
      ThrowingCallable write, String policySuffix, String message) {
    assertThatThrownBy(write)
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403))
        .satisfies(
            e ->
                assertThat(deniedByAssignmentPolicy(e.getMessage(), policySuffix))
                    .as("denied by a release's %s: %s", policySuffix, e.getMessage())
                    .isTrue())
        .hasMessageContaining(message);
  }

  /** The main release's policy is {@code sharegpu-assignment}, the second one's {@code X-...}. */
  private static boolean deniedByAssignmentPolicy(String message, String policy) {
    String name = "'([a-z0-9-]*-)?" + java.util.regex.Pattern.quote(policy) + "'";
    return java.util.regex.Pattern.compile(
            "ValidatingAdmissionPolicy " + name + " with binding " + name + " denied request")
        .matcher(message)
        .find();
  }

  private static String annotation(String key, String jsonValue) {
    return "{\"metadata\":{\"annotations\":{\"" + key + "\":" + jsonValue + "}}}";
  }

  private static String requeuedAt(String jsonValue) {
    return "{\"metadata\":{\"annotations\":{\"" + REQUEUED_AT + "\":" + jsonValue + "}}}";
  }

  private static Map<String, String> annotations(String namespace, String pod) {
    return client.pods().inNamespace(namespace).withName(pod).get().getMetadata().getAnnotations();
  }

  /**
   * Returns a client that authenticates with a token of the service account, as its pods do, and
   * nothing else: a client certificate left in the config (the admin's) would win over the token
   * and every write would be the admin's. Checks who the API server sees.
   */
  private static KubernetesClient asServiceAccount(String namespace, String serviceAccount) {
    String token =
        client
            .serviceAccounts()
            .inNamespace(namespace)
            .withName(serviceAccount)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Config admin = Config.fromKubeconfig(cluster.kubeconfig().toFile());
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(cluster.apiServerUrl())
            .withCaCertData(admin.getCaCertData())
            .withOauthToken(token)
            .build();
    KubernetesClient as = new KubernetesClientBuilder().withConfig(config).build();
    assertThat(
            as.authentication()
                .v1()
                .selfSubjectReviews()
                .create(new SelfSubjectReview())
                .getStatus()
                .getUserInfo()
                .getUsername())
        .isEqualTo("system:serviceaccount:" + namespace + ":" + serviceAccount);
    return as;
  }

  private static KubernetesClient impersonating(String namespace, String serviceAccount) {
    Config admin = Config.fromKubeconfig(cluster.kubeconfig().toFile());
    Config config =
        new ConfigBuilder(admin)
            .withImpersonateUsername("system:serviceaccount:" + namespace + ":" + serviceAccount)
            .withImpersonateGroups(
                "system:serviceaccounts",
                "system:serviceaccounts:" + namespace,
                "system:authenticated")
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private static boolean selfReview(
      KubernetesClient as, String verb, String group, String resource, String namespace) {
    SelfSubjectAccessReview review =
        new SelfSubjectAccessReviewBuilder()
            .withNewSpec()
            .withResourceAttributes(attributes(verb, group, resource, namespace, null))
            .endSpec()
            .build();
    return as.authorization()
        .v1()
        .selfSubjectAccessReview()
        .create(review)
        .getStatus()
        .getAllowed();
  }

  private static String tokenKubeconfig(String token) {
    Config admin = Config.fromKubeconfig(cluster.kubeconfig().toFile());
    return String.join(
        "\n",
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: test",
        "  cluster:",
        "    server: " + cluster.apiServerUrl(),
        "    certificate-authority-data: " + admin.getCaCertData(),
        "users:",
        "- name: sharegpu-scheduler",
        "  user:",
        "    token: " + token,
        "contexts:",
        "- name: test",
        "  context: {cluster: test, user: sharegpu-scheduler}",
        "current-context: test",
        "");
  }

  private static Path binDir() throws IOException {
    for (String line : Files.readAllLines(cluster.dir().resolve("env"))) {
      String assignment = line.startsWith("export ") ? line.substring(7) : line;
      if (assignment.startsWith("BIN_DIR=")) {
        return Path.of(assignment.substring(8).replace("\"", "").replace("'", ""));
      }
    }
    throw new IllegalStateException(cluster.dir().resolve("env") + " has no BIN_DIR");
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join(
          "\n", new ArrayList<>(lines.subList(Math.max(0, lines.size() - 40), lines.size())));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
