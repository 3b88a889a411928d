package io.sharegpu.charts;

import static io.sharegpu.charts.RenderedChart.NAMESPACE;
import static io.sharegpu.charts.RenderedChart.render;
import static io.sharegpu.charts.RenderedChart.sets;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** helm lint and helm template of charts/sharegpu, through helm-java, for several value sets. */
class ChartTemplateTest {

  /** Named value sets: each is a list of values files under src/test/resources/values. */
  static Stream<Arguments> valueSets() {
    return Stream.of(
        Arguments.of("default", List.of()),
        Arguments.of("ha", List.of("ha.yaml")),
        Arguments.of("mps", List.of("mps.yaml")),
        Arguments.of("webhook-user-cert", List.of("webhook-user-cert.yaml")),
        Arguments.of("node-agent-selectors", List.of("node-agent-selectors.yaml")),
        Arguments.of("minimal", List.of("minimal.yaml")),
        Arguments.of("common-keys", List.of("common-keys.yaml")),
        Arguments.of("everything", List.of("ha.yaml", "mps.yaml", "webhook-user-cert.yaml")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void lintStrictPasses(String name, List<String> valuesFiles, @TempDir Path tmp) throws Exception {
    // helm-java's lint takes no values file: lint a copy of the chart whose values.yaml is the
    // merge of the defaults and the value set (helm lint -f would do the same).
    Path chart = copyChartWithValues(tmp, valuesFiles);
    LintResult result = new Helm(chart).lint().strict().call();
    assertThat(result.isFailed()).as("lint messages: %s", result.getMessages()).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void rendersValidObjectsWithLabelsAndNamespaces(String name, List<String> valuesFiles) {
    RenderedChart chart = render(valuesFiles, Map.of());
    assertThat(chart.objects()).isNotEmpty();
    for (HasMetadata object : chart.objects()) {
      assertThat(object.getMetadata().getLabels())
          .as("labels of %s/%s", object.getKind(), object.getMetadata().getName())
          .containsEntry("app.kubernetes.io/instance", RenderedChart.RELEASE)
          .containsEntry("app.kubernetes.io/managed-by", "Helm");
      assertThat(object.getMetadata().getName()).hasSizeLessThanOrEqualTo(63);
    }
    assertThat(chart.names()).doesNotHaveDuplicates();
  }

  @Test
  void schemaRejectsAMisspeltKey() {
    assertThatThrownBy(() -> render("typo.yaml"))
        .hasMessageContaining("replicass")
        .hasMessageContaining("additional");
    assertThatThrownBy(() -> render(List.of(), sets("nodeAgent.nodeSelectr.gpu", "true")))
        .hasMessageContaining("nodeSelectr");
  }

  @Test
  void schemaRejectsAMisspeltKeyInLint(@TempDir Path tmp) throws Exception {
    LintResult result = new Helm(copyChartWithValues(tmp, List.of("typo.yaml"))).lint().call();
    assertThat(result.isFailed()).isTrue();
    assertThat(String.join("\n", result.getMessages())).contains("replicass");
  }

  @Test
  void schemaRejectsValuesOfTheWrongShape() {
    assertThatThrownBy(() -> render(List.of(), sets("enforcement.mode", "hami")))
        .hasMessageContaining("/enforcement/mode");
    assertThatThrownBy(() -> render(List.of(), sets("extender.replicas", "two")))
        .hasMessageContaining("/extender/replicas");
    assertThatThrownBy(() -> render(List.of(), sets("webhook.failurePolicy", "Retry")))
        .hasMessageContaining("/webhook/failurePolicy");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void rbacHasNoWildcards(String name, List<String> valuesFiles) {
    RenderedChart chart = render(valuesFiles, Map.of());
    List<PolicyRule> rules = new ArrayList<>();
    chart.all(ClusterRole.class).forEach(r -> rules.addAll(r.getRules()));
    chart.all(Role.class).forEach(r -> rules.addAll(r.getRules()));
    assertThat(rules).isNotEmpty();
    for (PolicyRule rule : rules) {
      assertThat(rule.getVerbs()).doesNotContain("*").isNotEmpty();
      assertThat(rule.getResources()).doesNotContain("*").isNotEmpty();
      assertThat(rule.getApiGroups()).doesNotContain("*");
      assertThat(rule.getResourceNames()).doesNotContain("*");
      assertThat(rule.getNonResourceURLs()).isEmpty();
    }
    // the only upstream roles bound are the ones kube-scheduler itself is built for
    assertThat(chart.all(ClusterRoleBinding.class))
        .extracting(b -> b.getRoleRef().getName())
        .filteredOn(n -> !n.startsWith(RenderedChart.RELEASE + "-"))
        .allMatch(n -> n.equals("system:kube-scheduler") || n.equals("system:volume-scheduler"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void everyDeploymentHasProbesResourcesAndLeastPrivilege(String name, List<String> valuesFiles) {
    RenderedChart chart = render(valuesFiles, Map.of());
    assertThat(chart.all(Deployment.class)).isNotEmpty();
    for (Deployment deployment : chart.all(Deployment.class)) {
      PodSpec pod = deployment.getSpec().getTemplate().getSpec();
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
      for (Container container : pod.getContainers()) {
        String what = deployment.getMetadata().getName() + "/" + container.getName();
        assertThat(container.getReadinessProbe()).as("readiness of %s", what).isNotNull();
        assertThat(container.getLivenessProbe()).as("liveness of %s", what).isNotNull();
        assertThat(container.getResources().getRequests())
            .as("requests of %s", what)
            .containsKeys("cpu", "memory");
        assertThat(container.getResources().getLimits())
            .as("limits of %s", what)
            .containsKey("memory");
        assertLeastPrivilege(container, what);
        assertThat(container.getImage()).as(what).doesNotEndWith(":latest").contains(":");
      }
    }
  }

  @Test
  void everyComponentHonoursTheCommonKeys() {
    RenderedChart chart = render("common-keys.yaml");
    List<PodTemplateSpec> templates = new ArrayList<>();
    List<String> names = new ArrayList<>();
    chart.all(Deployment.class).forEach(d -> templates.add(d.getSpec().getTemplate()));
    chart.all(Deployment.class).forEach(d -> names.add(d.getMetadata().getName()));
    chart.all(DaemonSet.class).forEach(d -> templates.add(d.getSpec().getTemplate()));
    chart.all(DaemonSet.class).forEach(d -> names.add(d.getMetadata().getName()));
    assertThat(names)
        .containsExactlyInAnyOrder(
            "sharegpu-extender",
            "sharegpu-scheduler",
            "sharegpu-controller",
            "sharegpu-webhook",
            "sharegpu-node-agent",
            "sharegpu-mps-daemon");
    for (int i = 0; i < templates.size(); i++) {
      PodTemplateSpec template = templates.get(i);
      PodSpec pod = template.getSpec();
      String what = names.get(i);
      assertThat(template.getMetadata().getAnnotations())
          .as(what)
          .containsEntry("example.com/audit", "yes");
      assertThat(template.getMetadata().getLabels())
          .as(what)
          .containsEntry("example.com/tier", "control");
      assertThat(pod.getPriorityClassName()).as(what).isEqualTo("system-cluster-critical");
      assertThat(pod.getImagePullSecrets())
          .as(what)
          .extracting(s -> s.getName())
          .containsExactly("registry-credentials");
      assertThat(pod.getNodeSelector()).as(what).containsEntry("example.com/pool", "infra");
      assertThat(pod.getTolerations())
          .as(what)
          .extracting(t -> t.getKey())
          .contains("example.com/infra");
      assertThat(pod.getContainers().get(0).getImage())
          .as(what)
          .isEqualTo("registry.example.com/sharegpu/extender:9.9.9");
      assertThat(pod.getContainers().get(0).getEnv())
          .as(what)
          .extracting(EnvVar::getName)
          .contains("JAVA_TOOL_OPTIONS");
      assertThat(pod.getServiceAccountName()).as(what).startsWith("custom-sa-");
      assertThat(chart.find(ServiceAccount.class, pod.getServiceAccountName()))
          .as(what)
          .isPresent();
      // user settings merge over the least-privilege defaults instead of replacing them
      assertThat(pod.getSecurityContext().getSeccompProfile().getType())
          .as(what)
          .isEqualTo("RuntimeDefault");
      assertThat(pod.getContainers().get(0).getSecurityContext().getCapabilities().getDrop())
          .as(what)
          .isNotEmpty();
    }
    assertThat(chart.objects())
        .allSatisfy(
            o -> assertThat(o.getMetadata().getLabels()).containsEntry("team", "gpu-platform"));
    // the RBAC follows the renamed service accounts
    assertThat(chart.get(ClusterRoleBinding.class, "sharegpu-extender").getSubjects())
        .singleElement()
        .satisfies(subject -> assertThat(subject.getName()).isEqualTo("custom-sa-extender"));
  }

  @Test
  void schedulerConfigCallsTheExtenderServiceWithTheProfileAndLeaderElection() throws Exception {
    RenderedChart chart = render();
    ConfigMap config = chart.get(ConfigMap.class, "sharegpu-scheduler");
    JsonNode scheduler = new YAMLMapper().readTree(config.getData().get("scheduler-config.yaml"));
    assertThat(scheduler.at("/apiVersion").asText()).isEqualTo("kubescheduler.config.k8s.io/v1");
    assertThat(scheduler.at("/kind").asText()).isEqualTo("KubeSchedulerConfiguration");
    assertThat(scheduler.at("/profiles/0/schedulerName").asText()).isEqualTo("sharegpu-scheduler");
    assertThat(scheduler.at("/leaderElection/leaderElect").asBoolean()).isTrue();
    assertThat(scheduler.at("/leaderElection/resourceNamespace").asText()).isEqualTo(NAMESPACE);
    assertThat(scheduler.at("/leaderElection/resourceName").asText())
        .isEqualTo("sharegpu-scheduler");
    JsonNode extender = scheduler.at("/extenders/0");
    assertThat(extender.at("/urlPrefix").asText())
        .isEqualTo("https://sharegpu-extender.sharegpu-system.svc:8443");
    assertThat(extender.at("/filterVerb").asText()).isEqualTo("filter");
    assertThat(extender.at("/preemptVerb").asText()).isEqualTo("preempt");
    assertThat(extender.at("/prioritizeVerb").asText()).isEqualTo("prioritize");
    assertThat(extender.at("/bindVerb").asText()).isEqualTo("bind");
    assertThat(extender.at("/nodeCacheCapable").asBoolean()).isTrue();
    assertThat(extender.at("/weight").asInt()).isEqualTo(5);
    assertThat(extender.at("/httpTimeout").asText()).isEqualTo("10s");
    assertThat(extender.at("/managedResources").findValuesAsString("name"))
        .containsExactly("sharegpu.io/gpu-milli", "sharegpu.io/gpu-memory");
    assertThat(extender.at("/managedResources").findValues("ignoredByScheduler"))
        .allMatch(v -> !v.asBoolean());

    Service service = chart.get(Service.class, "sharegpu-extender");
    assertThat(service.getSpec().getPorts().get(0).getName()).isEqualTo("verbs");
    assertThat(service.getSpec().getPorts().get(0).getPort()).isEqualTo(8443);
    assertThat(service.getSpec().getSelector())
        .isEqualTo(chart.deployment("extender").getSpec().getSelector().getMatchLabels());

    Container kubeScheduler = container(chart.deployment("scheduler"));
    assertThat(kubeScheduler.getImage()).isEqualTo("ghcr.io/sharegpu/kube-scheduler:v1.34.2");
    assertThat(kubeScheduler.getCommand())
        .contains("--config=/etc/sharegpu/scheduler/scheduler-config.yaml");
    // the config is mounted and a change rolls the pods
    assertThat(chart.deployment("scheduler").getSpec().getTemplate().getMetadata().getAnnotations())
        .containsKey("checksum/config");
  }

  @Test
  void aPartitionReleaseSchedulesOntoItsPoolOnlyAndTheFirstReleaseAdmitsItsPods() throws Exception {
    RenderedChart pool = render("partition.yaml");
    JsonNode scheduler =
        new YAMLMapper()
            .readTree(
                pool.get(ConfigMap.class, "sharegpu-scheduler")
                    .getData()
                    .get("scheduler-config.yaml"));
    assertThat(scheduler.at("/profiles/0/schedulerName").asText())
        .isEqualTo("sharegpu-scheduler-b300");
    assertThat(scheduler.at("/profiles/0/pluginConfig/0/name").asText()).isEqualTo("NodeAffinity");
    JsonNode terms =
        scheduler.at(
            "/profiles/0/pluginConfig/0/args/addedAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms");
    assertThat(terms.size()).isEqualTo(1);
    JsonNode expressions = terms.at("/0/matchExpressions");
    assertThat(expressions.findValuesAsString("key"))
        .containsExactly("sharegpu.io/pool", "topology.kubernetes.io/zone");
    assertThat(expressions.findValuesAsString("operator")).containsOnly("In");
    assertThat(expressions.at("/0/values/0").asText()).isEqualTo("b300");
    assertThat(expressions.at("/1/values/0").asText()).isEqualTo("zone-a");
    assertThat(pool.names()).noneMatch(n -> n.startsWith("Deployment/sharegpu-webhook"));

    // without a partition: no pluginConfig, every node
    JsonNode whole =
        new YAMLMapper()
            .readTree(
                render()
                    .get(ConfigMap.class, "sharegpu-scheduler")
                    .getData()
                    .get("scheduler-config.yaml"));
    assertThat(whole.at("/profiles/0/pluginConfig").isMissingNode()).isTrue();

    // the first release's webhook admits GPU pods naming the partition's scheduler
    Map<String, EnvVar> webhook =
        env(container(render("partition-admit.yaml").deployment("webhook")));
    assertThat(webhook.get("SHAREGPU_WEBHOOK_PARTITIONSCHEDULERNAMES").getValue())
        .isEqualTo("sharegpu-scheduler-b300");
    assertThat(
            env(container(render().deployment("webhook")))
                .get("SHAREGPU_WEBHOOK_PARTITIONSCHEDULERNAMES")
                .getValue())
        .isEmpty();
    assertThatThrownBy(
            () -> render(List.of(), sets("webhook.partitionSchedulerNames", "{default-scheduler}")))
        .hasMessageContaining("partitionSchedulerNames");
  }

  @Test
  void extenderGetsItsContractEnvAndBindLease() {
    RenderedChart chart = render("ha.yaml");
    Deployment extender = chart.deployment("extender");
    assertThat(extender.getSpec().getReplicas()).isEqualTo(2);
    Map<String, EnvVar> env = env(container(extender));
    assertThat(env.get("SHAREGPU_EXTENDER_POLICY").getValue()).isEqualTo("sharegpu");
    assertThat(env.get("SHAREGPU_EXTENDER_BIND_LEASE_NAME").getValue())
        .isEqualTo("sharegpu-extender-bind");
    assertThat(env.get("SHAREGPU_EXTENDER_BIND_LEASE_NAMESPACE").getValue()).isEqualTo(NAMESPACE);
    assertThat(env.get("POD_IP").getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("status.podIP");
    assertThat(env.get("SHAREGPU_EXTENDER_ADVERTISE_URL").getValue())
        .isEqualTo("https://$(POD_IP):8443");
    // POD_IP must come first for $(POD_IP) to expand
    List<String> order =
        container(extender).getEnv().stream().map(EnvVar::getName).collect(Collectors.toList());
    assertThat(order.indexOf("POD_IP"))
        .isLessThan(order.indexOf("SHAREGPU_EXTENDER_ADVERTISE_URL"));
    // sharegpu.metrics.per-gpu and per-gpu-max-series, as Spring reads them from the environment
    assertThat(env.get("SHAREGPU_METRICS_PERGPU").getValue()).isEqualTo("true");
    assertThat(env.get("SHAREGPU_METRICS_PERGPUMAXSERIES").getValue()).isEqualTo("1200000");
    Map<String, EnvVar> defaults = env(container(render().deployment("extender")));
    assertThat(defaults.get("SHAREGPU_METRICS_PERGPU").getValue()).isEqualTo("false");
    assertThat(defaults.get("SHAREGPU_METRICS_PERGPUMAXSERIES").getValue()).isEqualTo("0");
    // sharegpu.extender.warmup-cycles, 3000 unless set
    assertThat(defaults.get("SHAREGPU_EXTENDER_WARMUPCYCLES").getValue()).isEqualTo("3000");
    assertThat(
            env(container(
                    render(List.of(), sets("extender.warmupCycles", 0)).deployment("extender")))
                .get("SHAREGPU_EXTENDER_WARMUPCYCLES")
                .getValue())
        .isEqualTo("0");

    // the allocation summary: patch of gpunodes/status only, nothing on the GPUNode itself
    List<PolicyRule> extenderRules = chart.get(ClusterRole.class, "sharegpu-extender").getRules();
    assertThat(extenderRules)
        .anySatisfy(
            r -> {
              assertThat(r.getApiGroups()).containsExactly("sharegpu.io");
              assertThat(r.getResources()).containsExactly("gpunodes/status");
              assertThat(r.getVerbs()).containsExactly("patch");
            });
    assertThat(extenderRules)
        .filteredOn(r -> r.getResources().contains("gpunodes"))
        .allSatisfy(r -> assertThat(r.getVerbs()).containsOnly("get", "list", "watch"));
    Role lease = chart.get(Role.class, "sharegpu-extender");
    assertThat(lease.getRules())
        .anySatisfy(
            r -> assertThat(r.getResourceNames()).containsExactly("sharegpu-extender-bind"));
    // HA: PDBs keep one replica of each control-plane component through drains
    assertThat(chart.all(PodDisruptionBudget.class))
        .extracting(p -> p.getMetadata().getName())
        .contains(
            "sharegpu-extender", "sharegpu-scheduler", "sharegpu-webhook", "sharegpu-controller");
    assertThat(chart.deployment("scheduler").getSpec().getReplicas()).isEqualTo(2);
    assertThat(
            chart.get(ConfigMap.class, "sharegpu-scheduler").getData().get("scheduler-config.yaml"))
        .contains("resourceName: sharegpu-scheduler-lock")
        .contains("leaderElect: true");
    assertThat(
            chart
                .deployment("webhook")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getAffinity()
                .getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution())
        .hasSize(1);
  }

  @Test
  void controllerRunsTwoReplicasThatElectALeaderThroughALease() {
    RenderedChart chart = render();
    Deployment controller = chart.deployment("controller");
    assertThat(controller.getSpec().getReplicas()).isEqualTo(2);
    // a new pod is a ready follower before an old one stops; the old leader releases the Lease
    assertThat(controller.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(
            controller.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
        .isZero();
    Map<String, EnvVar> env = env(container(controller));
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_ENABLED").getValue()).isEqualTo("true");
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_LEASENAME").getValue())
        .isEqualTo("sharegpu-controller");
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_NAMESPACE").getValue())
        .isEqualTo(NAMESPACE);
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_LEASEDURATION").getValue())
        .isEqualTo("15s");
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_RENEWDEADLINE").getValue())
        .isEqualTo("10s");
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_RETRYPERIOD").getValue())
        .isEqualTo("2s");

    // namespaced: create any Lease (RBAC cannot name what is created), read and renew its own only
    Role role = chart.get(Role.class, "sharegpu-controller");
    assertThat(role.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(role.getRules()).hasSize(2);
    assertThat(role.getRules())
        .allSatisfy(
            r -> {
              assertThat(r.getApiGroups()).containsExactly("coordination.k8s.io");
              assertThat(r.getResources()).containsExactly("leases");
            });
    assertThat(role.getRules())
        .anySatisfy(
            r -> {
              assertThat(r.getVerbs()).containsExactly("create");
              assertThat(r.getResourceNames()).isEmpty();
            })
        .anySatisfy(
            r -> {
              assertThat(r.getVerbs()).containsExactly("get", "update", "patch");
              assertThat(r.getResourceNames()).containsExactly("sharegpu-controller");
            });
    RoleBinding binding = chart.get(RoleBinding.class, "sharegpu-controller");
    assertThat(binding.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
    assertThat(binding.getRoleRef().getName()).isEqualTo("sharegpu-controller");
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            subject -> {
              assertThat(subject.getKind()).isEqualTo("ServiceAccount");
              assertThat(subject.getName()).isEqualTo("sharegpu-controller");
              assertThat(subject.getNamespace()).isEqualTo(NAMESPACE);
            });
    PodDisruptionBudget pdb = chart.get(PodDisruptionBudget.class, "sharegpu-controller");
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(pdb.getSpec().getSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/component", "controller");
  }

  @Test
  void controllerLeaseSettingsAreValues() {
    RenderedChart chart =
        render(
            List.of(),
            sets(
                "controller.leaderElection.leaseName", "my-lease",
                "controller.leaderElection.leaseDuration", "30s",
                "controller.leaderElection.renewDeadline", "20s",
                "controller.leaderElection.retryPeriod", "4s"));
    Map<String, EnvVar> env = env(container(chart.deployment("controller")));
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_LEASENAME").getValue())
        .isEqualTo("my-lease");
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_LEASEDURATION").getValue())
        .isEqualTo("30s");
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_RENEWDEADLINE").getValue())
        .isEqualTo("20s");
    assertThat(env.get("SHAREGPU_CONTROLLER_LEADERELECTION_RETRYPERIOD").getValue())
        .isEqualTo("4s");
    assertThat(chart.get(Role.class, "sharegpu-controller").getRules())
        .anySatisfy(r -> assertThat(r.getResourceNames()).containsExactly("my-lease"));
    assertThatThrownBy(
            () -> render(List.of(), sets("controller.leaderElection.leaseDuration", "15")))
        .hasMessageContaining("/controller/leaderElection/leaseDuration");
  }

  @Test
  void controllerWithoutLeaderElectionRunsOneReplicaAtATime() {
    RenderedChart chart =
        render(
            List.of(), sets("controller.leaderElection.enabled", false, "controller.replicas", 1));
    Deployment controller = chart.deployment("controller");
    assertThat(controller.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    assertThat(
            env(container(controller)).get("SHAREGPU_CONTROLLER_LEADERELECTION_ENABLED").getValue())
        .isEqualTo("false");
    assertThat(chart.all(Role.class))
        .extracting(r -> r.getMetadata().getName())
        .doesNotContain("sharegpu-controller");
    assertThatThrownBy(() -> render(List.of(), sets("controller.leaderElection.enabled", false)))
        .hasMessageContaining("controller.replicas > 1 needs controller.leaderElection.enabled");
  }

  @Test
  void controllerGetsTheSchedulerName() {
    RenderedChart chart = render(List.of(), sets("schedulerName", "gpu-share"));
    assertThat(
            env(container(chart.deployment("controller")))
                .get("SHAREGPU_CONTROLLER_SCHEDULER_NAME")
                .getValue())
        .isEqualTo("gpu-share");
    assertThat(
            chart.get(ConfigMap.class, "sharegpu-scheduler").getData().get("scheduler-config.yaml"))
        .contains("schedulerName: gpu-share");
  }

  @Test
  void mpsDaemonOnlyWithMpsEnforcement() {
    assertThat(render().find(DaemonSet.class, "sharegpu-mps-daemon")).isEmpty();

    RenderedChart chart = render("mps.yaml");
    DaemonSet daemon = chart.daemonSet("mps-daemon");
    PodSpec pod = daemon.getSpec().getTemplate().getSpec();
    Container control = pod.getContainers().get(0);
    assertThat(control.getCommand()).containsExactly("nvidia-cuda-mps-control", "-f");
    assertThat(env(control).get("CUDA_MPS_PIPE_DIRECTORY").getValue()).isEqualTo("/tmp/nvidia-mps");
    assertThat(env(control).get("CUDA_MPS_LOG_DIRECTORY").getValue())
        .isEqualTo("/var/log/mps-control");
    assertThat(hostPath(pod, "/tmp/nvidia-mps")).isTrue();
    assertThat(pod.getRuntimeClassName()).isEqualTo("nvidia");
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(control.getSecurityContext().getPrivileged()).isFalse();
    // root with SETUID/SETGID only, as values.yaml says: a 0 or false in the values is kept
    assertThat(pod.getSecurityContext().getRunAsUser()).isZero();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isFalse();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(control.getSecurityContext().getCapabilities().getAdd())
        .containsExactly("SETUID", "SETGID");
    assertThat(pod.getNodeSelector()).containsEntry("nvidia.com/gpu.present", "true");

    // the agent sees the same pipe folder, read-only
    PodSpec agent = chart.daemonSet("node-agent").getSpec().getTemplate().getSpec();
    assertThat(hostPath(agent, "/tmp/nvidia-mps")).isTrue();
    assertThat(
            env(agent.getContainers().get(0)).get("SHAREGPU_AGENT_MPS_PIPE_DIRECTORY").getValue())
        .isEqualTo("/tmp/nvidia-mps");
    assertThat(agent.getContainers().get(0).getVolumeMounts())
        .filteredOn(m -> m.getMountPath().equals("/tmp/nvidia-mps"))
        .allMatch(m -> Boolean.TRUE.equals(m.getReadOnly()))
        .hasSize(1);
  }

  @Test
  void nodeAgentRunsOnGpuNodesWithLeastPrivilege() {
    RenderedChart chart = render();
    PodSpec pod = chart.daemonSet("node-agent").getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).containsExactly(Map.entry("nvidia.com/gpu.present", "true"));
    assertThat(pod.getRuntimeClassName()).isEqualTo("nvidia");
    assertThat(pod.getHostPID()).isTrue();
    assertThat(pod.getHostNetwork()).isNull();
    Container agent = pod.getContainers().get(0);
    assertLeastPrivilege(agent, "node-agent");
    Map<String, EnvVar> env = env(agent);
    assertThat(env.get("NODE_NAME").getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("spec.nodeName");
    assertThat(env.get("SHAREGPU_AGENT_HOST_PROC").getValue()).isEqualTo("/host/proc");
    assertThat(env.get("NVIDIA_VISIBLE_DEVICES").getValue()).isEqualTo("all");
    assertThat(agent.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/host/proc");
              assertThat(m.getReadOnly()).isTrue();
            });
    assertThat(hostPath(pod, "/proc")).isTrue();
    assertThat(agent.getPorts()).anySatisfy(p -> assertThat(p.getContainerPort()).isEqualTo(9400));
    assertThat(env.get("SHAREGPU_AGENT_METRICS_PORT").getValue()).isEqualTo("9400");
    assertThat(agent.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(agent.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
  }

  @Test
  void nodeAgentSelectorsTolerationsAndAffinityAreConfigurable() {
    RenderedChart chart = render("node-agent-selectors.yaml");
    PodSpec pod = chart.daemonSet("node-agent").getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).containsExactly(Map.entry("example.com/accelerator", "h200"));
    assertThat(pod.getTolerations())
        .singleElement()
        .satisfies(t -> assertThat(t.getKey()).isEqualTo("example.com/dedicated"));
    assertThat(
            pod.getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms())
        .hasSize(1);
    assertThat(pod.getRuntimeClassName()).isNull();
    assertThat(pod.getHostPID()).isFalse();
  }

  @Test
  void nodeAgentReadsRecordedInventoriesPerNodeFromAConfigMap() {
    PodSpec plain = render().daemonSet("node-agent").getSpec().getTemplate().getSpec();
    assertThat(plain.getContainers().get(0).getEnv())
        .noneMatch(e -> e.getName().equals("SHAREGPU_AGENT_INVENTORY_FILE"));
    assertThat(plain.getVolumes()).noneMatch(v -> v.getName().equals("inventory"));

    RenderedChart chart =
        render(List.of(), sets("nodeAgent.inventory.configMap", "gpu-inventories"));
    PodSpec pod = chart.daemonSet("node-agent").getSpec().getTemplate().getSpec();
    Container agent = pod.getContainers().get(0);
    List<String> env = agent.getEnv().stream().map(EnvVar::getName).toList();
    // $(NODE_NAME) expands only when NODE_NAME comes first
    assertThat(env).containsSubsequence("NODE_NAME", "SHAREGPU_AGENT_INVENTORY_FILE");
    assertThat(agent.getEnv())
        .filteredOn(e -> e.getName().equals("SHAREGPU_AGENT_INVENTORY_FILE"))
        .singleElement()
        .satisfies(
            e -> assertThat(e.getValue()).isEqualTo("/etc/sharegpu/inventory/$(NODE_NAME).json"));
    assertThat(agent.getVolumeMounts())
        .filteredOn(m -> m.getName().equals("inventory"))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/etc/sharegpu/inventory");
              assertThat(m.getReadOnly()).isTrue();
            });
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getName().equals("inventory"))
        .singleElement()
        .satisfies(v -> assertThat(v.getConfigMap().getName()).isEqualTo("gpu-inventories"));
  }

  @Test
  void webhookUsesTheUserCertificate() throws Exception {
    RenderedChart chart = render("webhook-user-cert.yaml");
    JsonNode values =
        new YAMLMapper().readTree(RenderedChart.valuesFile("webhook-user-cert.yaml").toFile());
    Secret secret = chart.get(Secret.class, "sharegpu-webhook-tls");
    assertThat(decode(secret.getData().get("tls.crt")))
        .isEqualTo(values.at("/webhook/tls/certificate").asText());
    assertThat(decode(secret.getData().get("tls.key")))
        .isEqualTo(values.at("/webhook/tls/key").asText());
    assertThat(secret.getMetadata().getAnnotations())
        .containsEntry("sharegpu.io/generated", "false");
    MutatingWebhook webhook = webhook(chart);
    assertThat(decode(webhook.getClientConfig().getCaBundle()))
        .isEqualTo(values.at("/webhook/tls/caCertificate").asText());
  }

  @Test
  void webhookRejectsAPartialUserCertificate() {
    assertThatThrownBy(() -> render(List.of(), sets("webhook.tls.certificate", "PEM")))
        .hasMessageContaining("set all of certificate, key and caCertificate");
  }

  @Test
  void webhookGeneratesACertificateForItsServiceSignedByTheCaBundle() throws Exception {
    RenderedChart chart = render();
    Secret secret = chart.get(Secret.class, "sharegpu-webhook-tls");
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    X509Certificate ca = certificate(factory, secret.getData().get("ca.crt"));
    X509Certificate serving = certificate(factory, secret.getData().get("tls.crt"));
    serving.verify(ca.getPublicKey());
    assertThat(
            serving.getSubjectAlternativeNames().stream()
                .map(san -> String.valueOf(san.get(1)))
                .collect(Collectors.toList()))
        .contains("sharegpu-webhook.sharegpu-system.svc");
    assertThat(webhook(chart).getClientConfig().getCaBundle())
        .isEqualTo(secret.getData().get("ca.crt"));

    Deployment deployment = chart.deployment("webhook");
    Container container = container(deployment);
    assertThat(env(container).get("SERVER_SSL_CERTIFICATE").getValue())
        .isEqualTo("/etc/sharegpu/tls/tls.crt");
    assertThat(env(container).get("SERVER_SSL_CERTIFICATE_PRIVATE_KEY").getValue())
        .isEqualTo("/etc/sharegpu/tls/tls.key");
    assertThat(container.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/sharegpu/tls"));
    assertThat(container.getReadinessProbe().getHttpGet().getPort().getStrVal())
        .isEqualTo("management");
    assertThat(env(container).get("SHAREGPU_WEBHOOK_SCHEDULER_NAME").getValue())
        .isEqualTo("sharegpu-scheduler");
    assertThat(env(container).get("SHAREGPU_WEBHOOK_MOUNT_MPS_PIPE").getValue()).isEqualTo("false");
    assertThat(
            env(container(render("mps.yaml").deployment("webhook")))
                .get("SHAREGPU_WEBHOOK_MOUNT_MPS_PIPE")
                .getValue())
        .isEqualTo("true");
    assertThat(deployment.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken())
        .isFalse();
  }

  @Test
  void webhookIsScopedAndFailsClosed() {
    MutatingWebhook webhook = webhook(render());
    assertThat(webhook.getFailurePolicy()).isEqualTo("Fail");
    assertThat(webhook.getSideEffects()).isEqualTo("None");
    assertThat(webhook.getClientConfig().getService().getPath()).isEqualTo("/mutate-pods");
    assertThat(webhook.getClientConfig().getService().getName()).isEqualTo("sharegpu-webhook");
    assertThat(webhook.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getOperations()).containsExactly("CREATE");
              assertThat(r.getResources()).containsExactly("pods");
            });
    assertThat(webhook.getNamespaceSelector().getMatchExpressions())
        .anySatisfy(
            e -> {
              assertThat(e.getKey()).isEqualTo("kubernetes.io/metadata.name");
              assertThat(e.getOperator()).isEqualTo("NotIn");
              assertThat(e.getValues()).containsExactlyInAnyOrder("kube-system", NAMESPACE);
            })
        .anySatisfy(
            e -> {
              assertThat(e.getKey()).isEqualTo("sharegpu.io/webhook");
              assertThat(e.getValues()).containsExactly("disabled");
            });
  }

  @Test
  void namespacesOptInToAPeerSpellingThroughTheirLabel() throws Exception {
    List<MutatingWebhook> webhooks =
        render().get(MutatingWebhookConfiguration.class, "sharegpu-webhook").getWebhooks();
    assertThat(webhooks.get(0).getClientConfig().getService().getPath()).isEqualTo("/mutate-pods");
    assertThat(webhooks.subList(1, webhooks.size()))
        .extracting(w -> w.getClientConfig().getService().getPath())
        .containsExactly(
            "/mutate-pods/translate/hami",
            "/mutate-pods/translate/kubeshare",
            "/mutate-pods/translate/kubeshare2",
            "/mutate-pods/translate/gpu-manager",
            "/mutate-pods/translate/gpushare",
            "/mutate-pods/translate/all");
    for (MutatingWebhook webhook : webhooks.subList(1, webhooks.size())) {
      String peer = webhook.getClientConfig().getService().getPath().replaceAll(".*/", "");
      assertThat(webhook.getNamespaceSelector().getMatchExpressions())
          .anySatisfy(
              e -> {
                assertThat(e.getKey()).isEqualTo("sharegpu.io/translate");
                assertThat(e.getOperator()).isEqualTo("In");
                assertThat(e.getValues()).containsExactly(peer);
              })
          .anySatisfy(e -> assertThat(e.getValues()).contains("kube-system"));
      assertThat(webhook.getFailurePolicy()).isEqualTo("Fail");
      assertThat(webhook.getReinvocationPolicy()).isEqualTo("IfNeeded");
    }
    assertThat(
            env(container(render().deployment("webhook")))
                .get("SHAREGPU_WEBHOOK_TRANSLATE")
                .getValue())
        .isEmpty();
    assertThat(
            env(container(render("translate.yaml").deployment("webhook")))
                .get("SHAREGPU_WEBHOOK_TRANSLATE")
                .getValue())
        .isEqualTo("hami,gpushare");
    assertThatThrownBy(() -> render("translate-unknown.yaml"))
        .hasMessageContaining("/webhook/translate");
  }

  @Test
  void serviceMonitorsOnlyWhenThePrometheusOperatorApiExists() {
    // helm template knows no monitoring.coreos.com API: nothing rendered, the NOTES say why.
    RenderedChart chart = render();
    assertThat(chart.names()).noneMatch(n -> n.startsWith("ServiceMonitor/"));
  }

  @Test
  void dashboardUsesShareGpuMetrics() throws Exception {
    ConfigMap dashboard = render().get(ConfigMap.class, "sharegpu-dashboard");
    assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    JsonNode json = new JsonMapper().readTree(dashboard.getData().get("sharegpu.json"));
    List<String> exprs = json.findValuesAsString("expr");
    assertThat(exprs).isNotEmpty().allMatch(e -> e.contains("sharegpu_"));
    assertThat(json.at("/panels").findValuesAsString("title"))
        .contains(
            "Compute allocated per node",
            "GPU memory used vs share, per pod",
            "Extender latency p99 per verb",
            "Denials by reason");
    String all = String.join("\n", exprs);
    assertThat(all)
        .contains("sharegpu_node_gpu_compute_allocated")
        .contains("sharegpu_node_gpu_memory_allocated_bytes")
        .contains("sharegpu_cluster_gpu_compute_unallocated_ratio")
        .contains("sharegpu_gpu_compute_allocated{Hostname=~")
        .contains("sharegpu_container_gpu_memory_used_bytes")
        .contains("resource=\"sharegpu_io_gpu_memory\"")
        .contains("sharegpu_decisions_total")
        .contains("sharegpu_rejections_total")
        .contains(
            "histogram_quantile(0.99, sum by (le, verb)"
                + " (rate(sharegpu_extender_request_duration_seconds_bucket");
    // the extender's series as renamed in docs/metrics.md: no query reads an old name
    assertThat(all)
        .doesNotContain("sharegpu_gpu_allocated_compute_ratio")
        .doesNotContain("sharegpu_gpu_allocated_memory_bytes")
        .doesNotContain("sharegpu_extender_request_seconds_bucket");
    // every panel inside the 24-column grid, none overlapping another
    List<JsonNode> grid = json.at("/panels").findValues("gridPos");
    for (int i = 0; i < grid.size(); i++) {
      JsonNode a = grid.get(i);
      assertThat(a.get("x").asInt() + a.get("w").asInt()).isLessThanOrEqualTo(24);
      for (int j = i + 1; j < grid.size(); j++) {
        JsonNode b = grid.get(j);
        boolean apart =
            a.get("x").asInt() + a.get("w").asInt() <= b.get("x").asInt()
                || b.get("x").asInt() + b.get("w").asInt() <= a.get("x").asInt()
                || a.get("y").asInt() + a.get("h").asInt() <= b.get("y").asInt()
                || b.get("y").asInt() + b.get("h").asInt() <= a.get("y").asInt();
        assertThat(apart).as("panels %d and %d overlap", i, j).isTrue();
      }
    }
    assertThat(render("minimal.yaml").find(ConfigMap.class, "sharegpu-dashboard")).isEmpty();
  }

  @Test
  void extenderVerbsUseMutualTlsWithGeneratedCertificates() throws Exception {
    RenderedChart chart = render();
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    Secret serving = chart.get(Secret.class, "sharegpu-extender-tls");
    Secret client = chart.get(Secret.class, "sharegpu-scheduler-extender-client");
    assertThat(client.getData().get("ca.crt")).isEqualTo(serving.getData().get("ca.crt"));
    X509Certificate ca = certificate(factory, serving.getData().get("ca.crt"));
    X509Certificate extenderCert = certificate(factory, serving.getData().get("tls.crt"));
    X509Certificate schedulerCert = certificate(factory, client.getData().get("tls.crt"));
    extenderCert.verify(ca.getPublicKey());
    schedulerCert.verify(ca.getPublicKey());
    assertThat(
            extenderCert.getSubjectAlternativeNames().stream()
                .map(san -> String.valueOf(san.get(1)))
                .collect(Collectors.toList()))
        .contains("sharegpu-extender.sharegpu-system.svc");
    // the bind forwarder presents the extender's own certificate as a client
    assertThat(extenderCert.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.2");
    assertThat(schedulerCert.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.2");

    JsonNode config =
        new YAMLMapper()
            .readTree(
                chart
                    .get(ConfigMap.class, "sharegpu-scheduler")
                    .getData()
                    .get("scheduler-config.yaml"))
            .at("/extenders/0");
    assertThat(config.at("/urlPrefix").asText()).startsWith("https://");
    assertThat(config.at("/tlsConfig/certFile").asText())
        .isEqualTo("/etc/sharegpu/extender-client/tls.crt");
    assertThat(config.at("/tlsConfig/keyFile").asText())
        .isEqualTo("/etc/sharegpu/extender-client/tls.key");
    assertThat(config.at("/tlsConfig/caFile").asText())
        .isEqualTo("/etc/sharegpu/extender-client/ca.crt");
    assertThat(config.at("/tlsConfig/insecure").isMissingNode()).isTrue();

    Deployment scheduler = chart.deployment("scheduler");
    assertThat(secretVolume(scheduler, "/etc/sharegpu/extender-client"))
        .isEqualTo("sharegpu-scheduler-extender-client");
    assertThat(scheduler.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsKey("checksum/extender-tls");

    Deployment extender = chart.deployment("extender");
    Map<String, EnvVar> env = env(container(extender));
    assertThat(env.get("SERVER_SSL_BUNDLE").getValue()).isEqualTo("extender");
    assertThat(env.get("SERVER_SSL_CLIENTAUTH").getValue()).isEqualTo("need");
    assertThat(env.get("SPRING_SSL_BUNDLE_PEM_EXTENDER_KEYSTORE_CERTIFICATE").getValue())
        .isEqualTo("/etc/sharegpu/tls/tls.crt");
    assertThat(env.get("SPRING_SSL_BUNDLE_PEM_EXTENDER_KEYSTORE_PRIVATEKEY").getValue())
        .isEqualTo("/etc/sharegpu/tls/tls.key");
    assertThat(env.get("SPRING_SSL_BUNDLE_PEM_EXTENDER_TRUSTSTORE_CERTIFICATE").getValue())
        .isEqualTo("/etc/sharegpu/tls/ca.crt");
    assertThat(env.get("SPRING_SSL_BUNDLE_PEM_EXTENDER_RELOADONUPDATE").getValue())
        .isEqualTo("true");
    assertThat(secretVolume(extender, "/etc/sharegpu/tls")).isEqualTo("sharegpu-extender-tls");
    assertThat(extender.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsKey("checksum/tls");
  }

  @Test
  void extenderTlsCanBeTurnedOffOrUseExistingSecrets() throws Exception {
    RenderedChart plain = render(List.of(), sets("extender.tls.enabled", "false"));
    JsonNode config =
        new YAMLMapper()
            .readTree(
                plain
                    .get(ConfigMap.class, "sharegpu-scheduler")
                    .getData()
                    .get("scheduler-config.yaml"))
            .at("/extenders/0");
    assertThat(config.at("/urlPrefix").asText())
        .isEqualTo("http://sharegpu-extender.sharegpu-system.svc:8443");
    assertThat(config.at("/tlsConfig").isMissingNode()).isTrue();
    assertThat(plain.names()).noneMatch(n -> n.startsWith("Secret/sharegpu-extender"));
    assertThat(env(container(plain.deployment("extender")))).doesNotContainKey("SERVER_SSL_BUNDLE");
    assertThat(
            env(container(plain.deployment("extender")))
                .get("SHAREGPU_EXTENDER_ADVERTISE_URL")
                .getValue())
        .isEqualTo("http://$(POD_IP):8443");

    RenderedChart own =
        render(
            List.of(),
            sets(
                "extender.tls.existingSecret", "my-extender-tls",
                "extender.tls.existingClientSecret", "my-scheduler-client"));
    assertThat(own.names())
        .noneMatch(n -> n.startsWith("Secret/sharegpu-extender") || n.contains("extender-client"));
    assertThat(secretVolume(own.deployment("extender"), "/etc/sharegpu/tls"))
        .isEqualTo("my-extender-tls");
    assertThat(secretVolume(own.deployment("scheduler"), "/etc/sharegpu/extender-client"))
        .isEqualTo("my-scheduler-client");

    assertThatThrownBy(
            () -> render(List.of(), sets("extender.tls.existingSecret", "my-extender-tls")))
        .hasMessageContaining("existingClientSecret");
  }

  @Test
  void debugUiAndActuatorAreOnTheManagementPortOnly() {
    RenderedChart chart = render();
    Container extender = container(chart.deployment("extender"));
    assertThat(extender.getPorts())
        .extracting(p -> p.getName() + ":" + p.getContainerPort())
        .containsExactly("verbs:8443", "management:8081");
    for (var probe :
        List.of(
            extender.getStartupProbe(),
            extender.getLivenessProbe(),
            extender.getReadinessProbe())) {
      assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("management");
      assertThat(probe.getHttpGet().getPath()).startsWith("/actuator/health/");
    }
    Map<String, EnvVar> env = env(extender);
    assertThat(env.get("SERVER_PORT").getValue()).isEqualTo("8443");
    assertThat(env.get("SHAREGPU_EXTENDER_MANAGEMENTPORT").getValue()).isEqualTo("8081");
    Service service = chart.get(Service.class, "sharegpu-extender");
    assertThat(service.getSpec().getPorts())
        .extracting(p -> p.getName() + ":" + p.getPort() + "->" + p.getTargetPort().getStrVal())
        .containsExactly("verbs:8443->verbs", "management:8081->management");
  }

  @Test
  void networkPoliciesAdmitOnlyTheSchedulerToTheVerbsAndTheApiServerToTheWebhook() {
    RenderedChart chart = render();
    NetworkPolicy extender = chart.get(NetworkPolicy.class, "sharegpu-extender");
    assertThat(extender.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(extender.getSpec().getPodSelector().getMatchLabels())
        .isEqualTo(chart.deployment("extender").getSpec().getSelector().getMatchLabels());
    List<NetworkPolicyIngressRule> rules = extender.getSpec().getIngress();
    assertThat(rules).hasSize(2);
    assertThat(rules.get(0).getPorts().get(0).getPort().getStrVal()).isEqualTo("verbs");
    assertThat(rules.get(0).getFrom())
        .extracting(peer -> peer.getPodSelector().getMatchLabels())
        .containsExactly(
            chart.deployment("scheduler").getSpec().getSelector().getMatchLabels(),
            chart.deployment("extender").getSpec().getSelector().getMatchLabels());
    assertThat(rules.get(0).getFrom()).allMatch(peer -> peer.getNamespaceSelector() == null);
    assertThat(rules.get(1).getPorts().get(0).getPort().getStrVal()).isEqualTo("management");
    assertThat(rules.get(1).getFrom()).isNullOrEmpty();

    NetworkPolicy webhook = chart.get(NetworkPolicy.class, "sharegpu-webhook");
    assertThat(webhook.getSpec().getIngress())
        .extracting(r -> r.getPorts().get(0).getPort().getStrVal())
        .containsExactly("https", "management");

    RenderedChart narrowed =
        render(
            List.of(),
            sets(
                "networkPolicy.managementFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name",
                "monitoring",
                "networkPolicy.webhookFrom[0].ipBlock.cidr",
                "10.0.0.0/24"));
    assertThat(
            narrowed
                .get(NetworkPolicy.class, "sharegpu-extender")
                .getSpec()
                .getIngress()
                .get(1)
                .getFrom()
                .get(0)
                .getNamespaceSelector()
                .getMatchLabels())
        .containsEntry("kubernetes.io/metadata.name", "monitoring");
    assertThat(
            narrowed
                .get(NetworkPolicy.class, "sharegpu-webhook")
                .getSpec()
                .getIngress()
                .get(0)
                .getFrom()
                .get(0)
                .getIpBlock()
                .getCidr())
        .isEqualTo("10.0.0.0/24");

    assertThat(render(List.of(), sets("networkPolicy.enabled", "false")).all(NetworkPolicy.class))
        .isEmpty();
  }

  @Test
  void assignmentAnnotationsAreFrozenForEveryPodUpdate() {
    RenderedChart chart = render();
    ValidatingAdmissionPolicy policy =
        chart.get(ValidatingAdmissionPolicy.class, "sharegpu-assignment");
    assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");
    // every user, not only the extender: no matchConditions
    assertThat(policy.getSpec().getMatchConditions()).isNullOrEmpty();
    assertThat(policy.getSpec().getMatchConstraints().getResourceRules())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getOperations()).containsExactly("UPDATE");
              assertThat(rule.getResources()).containsExactly("pods", "pods/*");
            });
    assertThat(policy.getSpec().getValidations())
        .singleElement()
        .satisfies(
            v ->
                assertThat(v.getExpression())
                    .contains("'sharegpu.io/assigned-'", "'sharegpu.io/mps-'"));
    ValidatingAdmissionPolicyBinding binding =
        chart.get(ValidatingAdmissionPolicyBinding.class, "sharegpu-assignment");
    assertThat(binding.getSpec().getPolicyName()).isEqualTo("sharegpu-assignment");
    assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");

    RenderedChart off = render(List.of(), sets("assignmentPolicy.enabled", "false"));
    assertThat(off.names()).noneMatch(n -> n.contains("sharegpu-assignment"));
  }

  private static String secretVolume(Deployment deployment, String mountPath) {
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    String volume =
        pod.getContainers().get(0).getVolumeMounts().stream()
            .filter(m -> m.getMountPath().equals(mountPath))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no mount at " + mountPath))
            .getName();
    return pod.getVolumes().stream()
        .filter(v -> v.getName().equals(volume))
        .findFirst()
        .orElseThrow()
        .getSecret()
        .getSecretName();
  }

  @Test
  void disabledComponentsRenderNothing() {
    RenderedChart chart = render("minimal.yaml");
    assertThat(chart.names())
        .noneMatch(n -> n.contains("sharegpu-webhook") || n.contains("sharegpu-controller"));
    assertThat(chart.all(MutatingWebhookConfiguration.class)).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------

  static void assertLeastPrivilege(Container container, String what) {
    var security = container.getSecurityContext();
    assertThat(security).as("securityContext of %s", what).isNotNull();
    assertThat(security.getPrivileged()).as("privileged %s", what).isFalse();
    assertThat(security.getAllowPrivilegeEscalation()).as("escalation %s", what).isFalse();
    assertThat(security.getReadOnlyRootFilesystem()).as("read-only root %s", what).isTrue();
    assertThat(security.getCapabilities().getDrop()).as("dropped caps %s", what).contains("ALL");
  }

  static Container container(Deployment deployment) {
    return deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  static Map<String, EnvVar> env(Container container) {
    return container.getEnv().stream()
        .collect(Collectors.toMap(EnvVar::getName, e -> e, (a, b) -> b));
  }

  static boolean hostPath(PodSpec pod, String path) {
    return pod.getVolumes().stream()
        .map(Volume::getHostPath)
        .anyMatch(h -> h != null && h.getPath().equals(path));
  }

  static MutatingWebhook webhook(RenderedChart chart) {
    return chart.get(MutatingWebhookConfiguration.class, "sharegpu-webhook").getWebhooks().get(0);
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  private static X509Certificate certificate(CertificateFactory factory, String base64)
      throws Exception {
    return (X509Certificate)
        factory.generateCertificate(new ByteArrayInputStream(Base64.getDecoder().decode(base64)));
  }

  /** A copy of the chart whose values.yaml also holds the given values files, merged in order. */
  static Path copyChartWithValues(Path tmp, List<String> valuesFiles) throws Exception {
    Path source = RenderedChart.chartDir();
    Path target = tmp.resolve("sharegpu");
    try (Stream<Path> files = Files.walk(source)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path copy = target.resolve(source.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(copy);
        } else {
          Files.copy(file, copy);
        }
      }
    }
    YAMLMapper yaml = new YAMLMapper();
    JsonNode merged = yaml.readTree(source.resolve("values.yaml").toFile());
    for (String file : valuesFiles) {
      merged = yaml.readerForUpdating(merged).readValue(RenderedChart.valuesFile(file).toFile());
    }
    removeNulls(merged);
    yaml.writeValue(target.resolve("values.yaml").toFile(), merged);
    return target;
  }

  /** Drops null entries, as Helm does when it merges a values file into the defaults. */
  private static void removeNulls(JsonNode node) {
    if (node instanceof ObjectNode) {
      ObjectNode object = (ObjectNode) node;
      List<String> nulls = new ArrayList<>();
      for (Map.Entry<String, JsonNode> entry : object.properties()) {
        if (entry.getValue().isNull()) {
          nulls.add(entry.getKey());
        } else {
          removeNulls(entry.getValue());
        }
      }
      nulls.forEach(object::remove);
    }
  }
}
