package io.sharegpu.extender.bench;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Realistic cluster objects for heap measurements: Nodes as kubelet and the node feature discovery
 * report them (labels, annotations, managed fields, conditions, addresses, node info, 30 images),
 * GPUNodes with 8 H100s, and Deployment pods as the API server stores them (labels, owner
 * reference, managed fields, env, volumes and mounts, the projected service-account token volume,
 * tolerations, probes, status with conditions and container statuses).
 *
 * <p>Pod {@code i} of {@code n}: the first 70% are bound GPU pods with ShareGPU's assignment
 * annotations (one share of 250m..500m or one whole GPU, at most one pod per GPU), the next 20%
 * plain running pods without GPU, the last 10% pending GPU pods. Everything is derived from the
 * index, so a list can be served page by page without holding it.
 */
public final class ClusterObjects {

  /** Memory of the generated GPUs (H100 80GB HBM3), MiB. */
  public static final long GPU_MEMORY_MIB = 81559;

  private static final Instant CREATED = Instant.parse("2026-11-20T08:00:00Z");
  private static final int NAMESPACES = 200;

  private final int nodes;
  private final int gpusPerNode;
  private final int pods;

  /** Creates the generator of a cluster. */
  public ClusterObjects(int nodes, int gpusPerNode, int pods) {
    this.nodes = nodes;
    this.gpusPerNode = gpusPerNode;
    this.pods = pods;
  }

  /** Number of bound GPU pods (with assignment annotations). */
  public int boundGpuPods() {
    return Math.min(pods * 7 / 10, nodes * gpusPerNode);
  }

  /** Number of plain pods without GPU. */
  public int plainPods() {
    return pods / 5;
  }

  /** Name of node {@code i}. */
  public static String nodeName(int i) {
    return String.format(Locale.ROOT, "gpu-node-%05d", i);
  }

  /** UUID of GPU {@code index} of node {@code node}. */
  public static String gpuUuid(int node, int index) {
    return new UUID(0x5a1e_0000_0000_0000L | node, 0x8000_0000_0000_0000L | index)
        .toString()
        .replaceFirst("^", "GPU-");
  }

  private static String uid(long kind, int i) {
    return new UUID(kind << 48 | 0x4000L | i, 0x9000_0000_0000_0000L ^ (i * 2654435761L))
        .toString();
  }

  private static String hex(int i, int length) {
    StringBuilder sb = new StringBuilder();
    long x = i * 0x9E3779B97F4A7C15L + length;
    while (sb.length() < length) {
      x ^= x >>> 31;
      x *= 0xBF58476D1CE4E5B9L;
      sb.append(Long.toHexString(x & 0xffffffffffL));
    }
    return sb.substring(0, length);
  }

  private static FieldsV1 fields(Map<String, Object> tree) {
    FieldsV1 f = new FieldsV1();
    tree.forEach(f::setAdditionalProperty);
    return f;
  }

  private static Map<String, Object> tree(String... keys) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (String k : keys) {
      m.put(k, new LinkedHashMap<>());
    }
    return m;
  }

  private static Map<String, Object> nest(String key, Map<String, Object> inner) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(key, inner);
    return m;
  }

  // ---- nodes -----------------------------------------------------------------------------------

  /** Node {@code i} as the API server returns it. */
  public Node node(int i) {
    String name = nodeName(i);
    String zone = "us-east-1" + (char) ('a' + i % 3);
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", new Quantity("192"));
    capacity.put("ephemeral-storage", new Quantity("3750000000Ki"));
    capacity.put("hugepages-1Gi", new Quantity("0"));
    capacity.put("hugepages-2Mi", new Quantity("0"));
    capacity.put("memory", new Quantity("2113309536Ki"));
    capacity.put("pods", new Quantity("110"));
    capacity.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(gpusPerNode * 1000)));
    capacity.put(
        ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(gpusPerNode * GPU_MEMORY_MIB)));
    Map<String, Quantity> allocatable = new LinkedHashMap<>(capacity);
    allocatable.put("cpu", new Quantity("191450m"));
    allocatable.put("memory", new Quantity("2102717280Ki"));
    allocatable.put("ephemeral-storage", new Quantity("3455932893007"));
    List<NodeCondition> conditions = new ArrayList<>();
    String heartbeat = CREATED.plusSeconds(86_400L + i).toString();
    String[][] conds = {
      {"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory"},
      {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
      {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
      {"Ready", "True", "KubeletReady", "kubelet is posting ready status"}
    };
    for (String[] c : conds) {
      conditions.add(
          new NodeConditionBuilder()
              .withType(c[0])
              .withStatus(c[1])
              .withReason(c[2])
              .withMessage(c[3])
              .withLastHeartbeatTime(heartbeat)
              .withLastTransitionTime(CREATED.toString())
              .build());
    }
    List<ContainerImage> images = new ArrayList<>();
    for (int k = 0; k < 30; k++) {
      String repo = "registry.example.com/ml/image-" + k;
      images.add(
          new ContainerImage(
              List.of(repo + "@sha256:" + hex(k * 7919, 64), repo + ":v" + (k % 7) + ".2." + k),
              1_000_000L * (200 + k * 37)));
    }
    Map<String, Object> kubeletFields = new LinkedHashMap<>();
    kubeletFields.put(
        "f:metadata",
        nest(
            "f:labels",
            tree(
                "f:beta.kubernetes.io/arch",
                "f:beta.kubernetes.io/os",
                "f:kubernetes.io/arch",
                "f:kubernetes.io/hostname",
                "f:kubernetes.io/os",
                "f:node.kubernetes.io/instance-type",
                "f:topology.kubernetes.io/region",
                "f:topology.kubernetes.io/zone")));
    Map<String, Object> statusFields =
        tree(
            "f:allocatable",
            "f:capacity",
            "f:conditions",
            "f:daemonEndpoints",
            "f:images",
            "f:nodeInfo",
            "f:addresses");
    ManagedFieldsEntry kubelet = managed("kubelet", "Update", null, CREATED, fields(kubeletFields));
    ManagedFieldsEntry kubeletStatus =
        managed(
            "kubelet",
            "Update",
            "status",
            CREATED.plusSeconds(86_400L),
            fields(nest("f:status", statusFields)));
    ManagedFieldsEntry controller =
        managed(
            "kube-controller-manager",
            "Update",
            null,
            CREATED,
            fields(nest("f:spec", tree("f:podCIDR", "f:podCIDRs"))));
    return new NodeBuilder()
        .withMetadata(
            new ObjectMetaBuilder()
                .withName(name)
                .withUid(uid(1, i))
                .withResourceVersion(Integer.toString(1_000_000 + i))
                .withCreationTimestamp(CREATED.toString())
                .addToLabels("beta.kubernetes.io/arch", "amd64")
                .addToLabels("beta.kubernetes.io/os", "linux")
                .addToLabels("kubernetes.io/arch", "amd64")
                .addToLabels("kubernetes.io/hostname", name)
                .addToLabels("kubernetes.io/os", "linux")
                .addToLabels("node.kubernetes.io/instance-type", "p5.48xlarge")
                .addToLabels("topology.kubernetes.io/region", "us-east-1")
                .addToLabels("topology.kubernetes.io/zone", zone)
                .addToLabels("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")
                .addToLabels("nvidia.com/gpu.count", Integer.toString(gpusPerNode))
                .addToLabels("nvidia.com/cuda.driver.major", "570")
                .addToLabels("feature.node.kubernetes.io/cpu-model.vendor_id", "AMD")
                .addToLabels("feature.node.kubernetes.io/kernel-version.full", "6.8.0-1021-aws")
                .addToLabels("sharegpu.io/gpu-node", "true")
                .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                .addToAnnotations("volumes.kubernetes.io/controller-managed-attach-detach", "true")
                .addToAnnotations(
                    "csi.volume.kubernetes.io/nodeid",
                    "{\"ebs.csi.aws.com\":\"i-0" + hex(i, 16) + "\"}")
                .addToAnnotations(
                    "nfd.node.kubernetes.io/feature-labels",
                    "cpu-model.vendor_id,kernel-version.full,pci-10de.present")
                .withManagedFields(kubelet, kubeletStatus, controller)
                .build())
        .withNewSpec()
        .withPodCIDR("10." + (i / 250) + "." + (i % 250) + ".0/24")
        .withPodCIDRs("10." + (i / 250) + "." + (i % 250) + ".0/24")
        .withProviderID("aws:///" + zone + "/i-0" + hex(i, 16))
        .addNewTaint()
        .withKey("nvidia.com/gpu")
        .withValue("present")
        .withEffect("NoSchedule")
        .endTaint()
        .endSpec()
        .withNewStatus()
        .withCapacity(capacity)
        .withAllocatable(allocatable)
        .withConditions(conditions)
        .addNewAddress()
        .withType("InternalIP")
        .withAddress("10.200." + (i / 250) + "." + (i % 250))
        .endAddress()
        .addNewAddress()
        .withType("Hostname")
        .withAddress(name)
        .endAddress()
        .addNewAddress()
        .withType("InternalDNS")
        .withAddress(name + ".ec2.internal")
        .endAddress()
        .withNewDaemonEndpoints()
        .withNewKubeletEndpoint(10250)
        .endDaemonEndpoints()
        .withNewNodeInfo()
        .withArchitecture("amd64")
        .withBootID(uid(2, i))
        .withContainerRuntimeVersion("containerd://1.7.27")
        .withKernelVersion("6.8.0-1021-aws")
        .withKubeProxyVersion("")
        .withKubeletVersion("v1.34.2")
        .withMachineID(hex(i, 32))
        .withOperatingSystem("linux")
        .withOsImage("Ubuntu 24.04.2 LTS")
        .withSystemUUID(uid(3, i))
        .endNodeInfo()
        .withImages(images)
        .endStatus()
        .build();
  }

  /** The GPUNode of node {@code i}: {@code gpusPerNode} H100s. */
  public GPUNode gpuNode(int i) {
    List<GpuStatus> gpus = new ArrayList<>();
    for (int k = 0; k < gpusPerNode; k++) {
      GpuStatus s = new GpuStatus(gpuUuid(i, k), k, "NVIDIA H100 80GB HBM3", GPU_MEMORY_MIB);
      s.setComputeMilli(1000);
      s.setHealthy(true);
      gpus.add(s);
    }
    GPUNode g = new GPUNode();
    g.setMetadata(
        new ObjectMetaBuilder()
            .withName(nodeName(i))
            .withUid(uid(4, i))
            .withResourceVersion(Integer.toString(2_000_000 + i))
            .withGeneration(1L)
            .withCreationTimestamp(CREATED.toString())
            .withManagedFields(
                managed(
                    "sharegpu-node-agent",
                    "Update",
                    "status",
                    CREATED,
                    fields(nest("f:status", tree("f:gpus", "f:driverVersion", "f:heartbeatTime")))))
            .build());
    GPUNodeStatus status = new GPUNodeStatus();
    status.setGpus(gpus);
    status.setDriverVersion("570.124.06");
    status.setEnforcement(GPUNodeStatus.ENFORCEMENT_MPS);
    status.setHeartbeatTime(CREATED.plusSeconds(86_400L + i).toString());
    g.setStatus(status);
    return g;
  }

  // ---- pods ------------------------------------------------------------------------------------

  /** Pod {@code i} as the API server returns it. */
  public Pod pod(int i) {
    int bound = boundGpuPods();
    boolean gpu = i < bound || i >= bound + plainPods();
    boolean assigned = i < bound;
    String app = "svc-" + (i % 1000);
    String ns = "team-" + (i % NAMESPACES);
    String hash = hex(i / 10, 10);
    String name = app + "-" + hash + "-" + hex(i, 5);
    int node = i % nodes;
    int gpuIndex = (i / nodes) % gpusPerNode;
    int milli = i % 10 == 0 ? 1000 : 250 + (i % 6) * 50;
    long memory = milli >= 1000 ? GPU_MEMORY_MIB : 16384;
    Instant created = CREATED.plusSeconds(i);

    Map<String, Quantity> limits = new LinkedHashMap<>();
    limits.put("cpu", new Quantity("4"));
    limits.put("memory", new Quantity("16Gi"));
    Map<String, Quantity> requests = new LinkedHashMap<>();
    requests.put("cpu", new Quantity("2"));
    requests.put("memory", new Quantity("8Gi"));
    if (gpu) {
      limits.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(milli)));
      limits.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(memory)));
      requests.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(milli)));
      requests.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(memory)));
    }
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("kubectl.kubernetes.io/restartedAt", "2026-11-30T12:00:00Z");
    annotations.put("prometheus.io/scrape", "true");
    annotations.put("prometheus.io/port", "9090");
    if (gpu && milli < 1000) {
      annotations.put(ShareGpuAnnotations.GPU_LIMIT_MILLI, Integer.toString(milli + 100));
    }
    if (assigned) {
      int limit = milli >= 1000 ? 1000 : milli + 100;
      PodAssignment a =
          new PodAssignment(
              nodeName(node),
              List.of(
                  new ContainerAssignment(
                      "main", List.of(gpuUuid(node, gpuIndex)), memory, limit)));
      annotations.putAll(AssignmentAnnotations.encode(a, created.plusSeconds(2)));
    }

    List<EnvVar> env = new ArrayList<>();
    env.add(new EnvVarBuilder().withName("APP_NAME").withValue(app).build());
    env.add(new EnvVarBuilder().withName("LOG_LEVEL").withValue("info").build());
    env.add(new EnvVarBuilder().withName("MODEL_PATH").withValue("/models/" + app).build());
    env.add(
        new EnvVarBuilder()
            .withName("POD_NAME")
            .withNewValueFrom()
            .withNewFieldRef("v1", "metadata.name")
            .endValueFrom()
            .build());
    env.add(
        new EnvVarBuilder()
            .withName("POD_NAMESPACE")
            .withNewValueFrom()
            .withNewFieldRef("v1", "metadata.namespace")
            .endValueFrom()
            .build());
    env.add(
        new EnvVarBuilder()
            .withName("POD_IP")
            .withNewValueFrom()
            .withNewFieldRef("v1", "status.podIP")
            .endValueFrom()
            .build());
    if (gpu) {
      env.add(annotationEnv("NVIDIA_VISIBLE_DEVICES", ShareGpuAnnotations.ASSIGNED_GPUS));
      env.add(
          annotationEnv(
              "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
              ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE));
      env.add(
          annotationEnv(
              "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", ShareGpuAnnotations.MPS_PINNED_MEM_LIMIT));
      env.add(
          new EnvVarBuilder()
              .withName("CUDA_MPS_PIPE_DIRECTORY")
              .withValue(ShareGpuAnnotations.MPS_PIPE_DIRECTORY)
              .build());
    }
    String token = "kube-api-access-" + hex(i + 7, 5);

    Map<String, Object> specFields = new LinkedHashMap<>();
    specFields.put(
        "f:containers",
        nest(
            "k:{\"name\":\"main\"}",
            tree(
                "f:env",
                "f:image",
                "f:imagePullPolicy",
                "f:livenessProbe",
                "f:name",
                "f:ports",
                "f:readinessProbe",
                "f:resources",
                "f:terminationMessagePath",
                "f:volumeMounts")));
    specFields.putAll(
        tree(
            "f:dnsPolicy",
            "f:enableServiceLinks",
            "f:restartPolicy",
            "f:schedulerName",
            "f:securityContext",
            "f:terminationGracePeriodSeconds",
            "f:tolerations",
            "f:volumes"));
    Map<String, Object> metaFields =
        tree("f:annotations", "f:generateName", "f:labels", "f:ownerReferences");
    Map<String, Object> controllerFields = new LinkedHashMap<>();
    controllerFields.put("f:metadata", metaFields);
    controllerFields.put("f:spec", specFields);
    Map<String, Object> kubeletFields =
        nest(
            "f:status",
            tree(
                "f:conditions",
                "f:containerStatuses",
                "f:hostIP",
                "f:hostIPs",
                "f:phase",
                "f:podIP",
                "f:podIPs",
                "f:startTime"));

    PodBuilder b =
        new PodBuilder()
            .withMetadata(
                new ObjectMetaBuilder()
                    .withName(name)
                    .withGenerateName(app + "-" + hash + "-")
                    .withNamespace(ns)
                    .withUid(uid(5, i))
                    .withResourceVersion(Integer.toString(3_000_000 + i))
                    .withCreationTimestamp(created.toString())
                    .addToLabels("app", app)
                    .addToLabels("app.kubernetes.io/name", app)
                    .addToLabels("app.kubernetes.io/instance", app + "-prod")
                    .addToLabels("app.kubernetes.io/component", gpu ? "inference" : "api")
                    .addToLabels("pod-template-hash", hash)
                    .addToLabels("team", ns)
                    .withAnnotations(annotations)
                    .addNewOwnerReference()
                    .withApiVersion("apps/v1")
                    .withKind("ReplicaSet")
                    .withName(app + "-" + hash)
                    .withUid(uid(6, i / 10))
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .endOwnerReference()
                    .withManagedFields(
                        managed(
                            "kube-controller-manager",
                            "Update",
                            null,
                            created,
                            fields(controllerFields)),
                        managed(
                            "kubelet",
                            "Update",
                            "status",
                            created.plusSeconds(20),
                            fields(kubeletFields)))
                    .build())
            .withNewSpec()
            .withContainers(
                new ContainerBuilder()
                    .withName("main")
                    .withImage("registry.example.com/ml/" + app + ":v3.2." + (i % 17))
                    .withImagePullPolicy("IfNotPresent")
                    .withArgs("--port=8080", "--metrics-port=9090", "--model=/models/" + app)
                    .withEnv(env)
                    .addNewPort()
                    .withName("http")
                    .withContainerPort(8080)
                    .withProtocol("TCP")
                    .endPort()
                    .addNewPort()
                    .withName("metrics")
                    .withContainerPort(9090)
                    .withProtocol("TCP")
                    .endPort()
                    .withNewResources()
                    .withLimits(limits)
                    .withRequests(requests)
                    .endResources()
                    .withVolumeMounts(
                        new VolumeMountBuilder()
                            .withName("config")
                            .withMountPath("/etc/app")
                            .withReadOnly(true)
                            .build(),
                        new VolumeMountBuilder()
                            .withName("cache")
                            .withMountPath("/var/cache/app")
                            .build(),
                        new VolumeMountBuilder()
                            .withName("nvidia-mps")
                            .withMountPath(ShareGpuAnnotations.MPS_PIPE_DIRECTORY)
                            .build(),
                        new VolumeMountBuilder()
                            .withName(token)
                            .withMountPath("/var/run/secrets/kubernetes.io/serviceaccount")
                            .withReadOnly(true)
                            .build())
                    .withNewLivenessProbe()
                    .withNewHttpGet()
                    .withPath("/healthz")
                    .withNewPort("http")
                    .withScheme("HTTP")
                    .endHttpGet()
                    .withInitialDelaySeconds(10)
                    .withPeriodSeconds(10)
                    .withTimeoutSeconds(1)
                    .withSuccessThreshold(1)
                    .withFailureThreshold(3)
                    .endLivenessProbe()
                    .withNewReadinessProbe()
                    .withNewHttpGet()
                    .withPath("/ready")
                    .withNewPort("http")
                    .withScheme("HTTP")
                    .endHttpGet()
                    .withPeriodSeconds(5)
                    .withTimeoutSeconds(1)
                    .withSuccessThreshold(1)
                    .withFailureThreshold(3)
                    .endReadinessProbe()
                    .withTerminationMessagePath("/dev/termination-log")
                    .withTerminationMessagePolicy("File")
                    .build(),
                new ContainerBuilder()
                    .withName("log-shipper")
                    .withImage("registry.example.com/infra/fluent-bit:3.1.9")
                    .withImagePullPolicy("IfNotPresent")
                    .addNewEnv()
                    .withName("FLUENT_HOST")
                    .withValue("logs.infra.svc.cluster.local")
                    .endEnv()
                    .withNewResources()
                    .addToLimits("cpu", new Quantity("200m"))
                    .addToLimits("memory", new Quantity("128Mi"))
                    .addToRequests("cpu", new Quantity("50m"))
                    .addToRequests("memory", new Quantity("64Mi"))
                    .endResources()
                    .addNewVolumeMount()
                    .withName("cache")
                    .withMountPath("/var/cache/app")
                    .withReadOnly(true)
                    .endVolumeMount()
                    .addNewVolumeMount()
                    .withName(token)
                    .withMountPath("/var/run/secrets/kubernetes.io/serviceaccount")
                    .withReadOnly(true)
                    .endVolumeMount()
                    .withTerminationMessagePath("/dev/termination-log")
                    .withTerminationMessagePolicy("File")
                    .build())
            .withVolumes(
                new VolumeBuilder()
                    .withName("config")
                    .withNewConfigMap()
                    .withName(app + "-config")
                    .withDefaultMode(420)
                    .endConfigMap()
                    .build(),
                new VolumeBuilder().withName("cache").withNewEmptyDir().endEmptyDir().build(),
                new VolumeBuilder()
                    .withName("nvidia-mps")
                    .withNewHostPath()
                    .withPath(ShareGpuAnnotations.MPS_PIPE_DIRECTORY)
                    .withType("Directory")
                    .endHostPath()
                    .build(),
                new VolumeBuilder()
                    .withName(token)
                    .withNewProjected()
                    .withDefaultMode(420)
                    .addNewSource()
                    .withNewServiceAccountToken()
                    .withExpirationSeconds(3607L)
                    .withPath("token")
                    .endServiceAccountToken()
                    .endSource()
                    .addNewSource()
                    .withNewConfigMap()
                    .withName("kube-root-ca.crt")
                    .addNewItem()
                    .withKey("ca.crt")
                    .withPath("ca.crt")
                    .endItem()
                    .endConfigMap()
                    .endSource()
                    .addNewSource()
                    .withNewDownwardAPI()
                    .addNewItem()
                    .withPath("namespace")
                    .withNewFieldRef("v1", "metadata.namespace")
                    .endItem()
                    .endDownwardAPI()
                    .endSource()
                    .endProjected()
                    .build())
            .addNewToleration()
            .withKey("node.kubernetes.io/not-ready")
            .withOperator("Exists")
            .withEffect("NoExecute")
            .withTolerationSeconds(300L)
            .endToleration()
            .addNewToleration()
            .withKey("node.kubernetes.io/unreachable")
            .withOperator("Exists")
            .withEffect("NoExecute")
            .withTolerationSeconds(300L)
            .endToleration()
            .addNewToleration()
            .withKey("nvidia.com/gpu")
            .withOperator("Exists")
            .withEffect("NoSchedule")
            .endToleration()
            .withDnsPolicy("ClusterFirst")
            .withEnableServiceLinks(true)
            .withPreemptionPolicy("PreemptLowerPriority")
            .withPriority(0)
            .withRestartPolicy("Always")
            .withSchedulerName(gpu ? ShareGpuAnnotations.SCHEDULER_NAME : "default-scheduler")
            .withServiceAccount("default")
            .withServiceAccountName("default")
            .withTerminationGracePeriodSeconds(30L)
            .withNewSecurityContext()
            .endSecurityContext()
            .endSpec();
    boolean running = i < bound + plainPods();
    if (running) {
      String hostIp = "10.200." + (node / 250) + "." + (node % 250);
      String podIp = "10." + (node / 250) + "." + (node % 250) + "." + (2 + i / nodes % 250);
      String started = created.plusSeconds(5).toString();
      b.editSpec().withNodeName(nodeName(node)).endSpec();
      b.withNewStatus()
          .withPhase("Running")
          .withConditions(
              podCondition("PodReadyToStartContainers", "True", started),
              podCondition("Initialized", "True", created.toString()),
              podCondition("Ready", "True", started),
              podCondition("ContainersReady", "True", started),
              podCondition("PodScheduled", "True", created.toString()))
          .withHostIP(hostIp)
          .addNewHostIP(hostIp)
          .withPodIP(podIp)
          .addNewPodIP(podIp)
          .withStartTime(created.toString())
          .withQosClass("Burstable")
          .addNewContainerStatus()
          .withName("main")
          .withImage("registry.example.com/ml/" + app + ":v3.2." + (i % 17))
          .withImageID("registry.example.com/ml/" + app + "@sha256:" + hex(i % 1000, 64))
          .withContainerID("containerd://" + hex(i, 64))
          .withReady(true)
          .withStarted(true)
          .withRestartCount(0)
          .withNewState()
          .withNewRunning(started)
          .endState()
          .endContainerStatus()
          .addNewContainerStatus()
          .withName("log-shipper")
          .withImage("registry.example.com/infra/fluent-bit:3.1.9")
          .withImageID("registry.example.com/infra/fluent-bit@sha256:" + hex(42, 64))
          .withContainerID("containerd://" + hex(i + 1_000_000, 64))
          .withReady(true)
          .withStarted(true)
          .withRestartCount(0)
          .withNewState()
          .withNewRunning(started)
          .endState()
          .endContainerStatus()
          .endStatus();
    } else {
      b.withNewStatus()
          .withPhase("Pending")
          .withQosClass("Burstable")
          .addNewCondition()
          .withType("PodScheduled")
          .withStatus("False")
          .withReason("Unschedulable")
          .withMessage(
              "0/" + nodes + " nodes are available: " + nodes + " GPUs on the node have no room.")
          .withLastTransitionTime(created.plusSeconds(1).toString())
          .endCondition()
          .endStatus();
    }
    return b.build();
  }

  private static EnvVar annotationEnv(String name, String annotation) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef("v1", "metadata.annotations['" + annotation + "']")
        .endValueFrom()
        .build();
  }

  private static PodCondition podCondition(String type, String status, String at) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withLastTransitionTime(at)
        .build();
  }

  private static ManagedFieldsEntry managed(
      String manager, String operation, String subresource, Instant time, FieldsV1 fields) {
    return new ManagedFieldsEntryBuilder()
        .withManager(manager)
        .withOperation(operation)
        .withApiVersion("v1")
        .withTime(time.toString())
        .withFieldsType("FieldsV1")
        .withFieldsV1(fields)
        .withSubresource(subresource)
        .build();
  }
}
