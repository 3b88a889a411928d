package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.kubectl.report.PodReport;
import io.sharegpu.kubectl.report.Reports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code drain GPU-UUID}: cordon the GPU, then evict every pod on it through the Eviction API
 * (policy/v1), so PodDisruptionBudgets are honoured. A 429 means a budget blocks the eviction for
 * now: it is retried with backoff (1 s doubling to 16 s) until {@code --timeout}, then the pods
 * still there are reported and the exit status is 1.
 */
@Command(
    name = "drain",
    mixinStandardHelpOptions = true,
    description = {
      "Cordon a GPU and evict its pods through the Eviction API, honouring PDBs.",
      "Evicts every pod assigned to the GPU with policy/v1 Evictions,",
      "honouring PodDisruptionBudgets: a blocked eviction is retried until --timeout.",
      "Needs update on gpunodes.sharegpu.io, list on pods and create on pods/eviction."
    })
public final class DrainCommand extends KubeCommand {

  @Parameters(index = "0", paramLabel = "GPU-UUID", description = "The GPU (or MIG instance).")
  String uuid = "";

  @Option(
      names = "--reason",
      paramLabel = "TEXT",
      description =
          "Why, recorded with the cordon (default: drained; a cordoned GPU keeps its own).")
  @Nullable String reason;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "120s",
      converter = DurationConverter.class,
      description = "How long to keep retrying blocked evictions, e.g. 90s, 5m (default: 120s).")
  Duration timeout = Duration.ofSeconds(120);

  @Option(
      names = "--dry-run",
      description =
          "Change nothing: the API server checks the cordon and each eviction (PDBs included).")
  boolean dryRun;

  @Override
  int run(KubernetesClient client) throws InterruptedException {
    int cordoned = CordonCommand.cordon(client, uuid, reason, "drained", dryRun, this);
    if (cordoned != 0) {
      return cordoned;
    }
    Map<String, Pod> remaining = new LinkedHashMap<>();
    for (Pod pod : BoundPods.list(client, null)) {
      if (pod.getMetadata().getDeletionTimestamp() == null && onGpu(pod)) {
        remaining.put(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(), pod);
      }
    }
    if (remaining.isEmpty()) {
      out().println("no pods on gpu/" + uuid);
      return 0;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<String, String> blocked = new LinkedHashMap<>();
    long backoffMillis = 1000;
    while (true) {
      blocked.clear();
      for (String key : new ArrayList<>(remaining.keySet())) {
        Pod pod = remaining.get(key);
        String result = evict(client, pod);
        if (result == null) {
          out().println("pod/" + key + " evicted" + (dryRun ? " (dry run)" : ""));
          remaining.remove(key);
        } else {
          blocked.put(key, result);
        }
      }
      if (remaining.isEmpty()) {
        out().println("gpu/" + uuid + " drained" + (dryRun ? " (dry run)" : ""));
        return 0;
      }
      long left = deadline - System.nanoTime();
      if (dryRun || left <= 0) {
        break;
      }
      long sleep = Math.min(backoffMillis, Math.max(1, left / 1_000_000));
      for (Map.Entry<String, String> b : blocked.entrySet()) {
        err()
            .println(
                "error when evicting pod/"
                    + b.getKey()
                    + " (will retry after "
                    + sleep / 1000.0
                    + "s): "
                    + b.getValue());
      }
      err().flush();
      Thread.sleep(sleep);
      backoffMillis = Math.min(backoffMillis * 2, 16_000);
    }
    err()
        .println(
            "error: "
                + remaining.size()
                + " pod(s) could not be evicted from gpu/"
                + uuid
                + (dryRun ? "" : " within " + timeout.toSeconds() + "s")
                + ":");
    blocked.forEach((key, why) -> err().println("  pod/" + key + ": " + why));
    return 1;
  }

  private boolean onGpu(Pod pod) {
    return Reports.podRows(pod).stream()
        .map(PodReport.ContainerRow::gpuUuids)
        .anyMatch(l -> l.contains(uuid));
  }

  /** Returns null when the pod was evicted (or is gone), else why not. */
  private String evict(KubernetesClient client, Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    EvictionBuilder eviction =
        new EvictionBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata();
    if (dryRun) {
      eviction.withDeleteOptions(new DeleteOptionsBuilder().withDryRun("All").build());
    }
    Eviction e = eviction.build();
    try {
      boolean evicted = client.pods().inNamespace(ns).withName(name).evict(e);
      return evicted
          ? null
          : "Cannot evict pod as it would violate the pod's disruption budget (HTTP 429)";
    } catch (KubernetesClientException ex) {
      if (ex.getCode() == 404) {
        return null;
      }
      if (ex.getCode() == 429) {
        return "Cannot evict pod as it would violate the pod's disruption budget (HTTP 429)";
      }
      throw ex;
    }
  }

  /** Reads {@code 90}, {@code 90s}, {@code 5m}, {@code 1h} or an ISO-8601 duration. */
  static final class DurationConverter implements picocli.CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim().toLowerCase(java.util.Locale.ROOT);
      if (v.startsWith("p")) {
        return Duration.parse(value);
      }
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      char unit = v.charAt(v.length() - 1);
      String number = Character.isDigit(unit) ? v : v.substring(0, v.length() - 1);
      long n = Long.parseLong(number);
      return switch (unit) {
        case 'm' -> Duration.ofMinutes(n);
        case 'h' -> Duration.ofHours(n);
        default -> Duration.ofSeconds(n);
      };
    }
  }
}
