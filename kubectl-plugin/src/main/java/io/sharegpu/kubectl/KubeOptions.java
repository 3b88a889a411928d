package io.sharegpu.kubectl;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The kubectl options every command takes: which kubeconfig, which context, whom to act as. Without
 * {@code --kubeconfig} the client reads {@code KUBECONFIG} or {@code ~/.kube/config} (or the
 * in-cluster service account), as kubectl does.
 */
public final class KubeOptions {

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config).")
  @Nullable Path kubeconfig;

  @Option(names = "--context", paramLabel = "NAME", description = "The kubeconfig context to use.")
  @Nullable String context;

  @Option(
      names = "--as",
      paramLabel = "USER",
      description = "User to impersonate for the operation.")
  @Nullable String as;

  @Option(
      names = "--as-group",
      paramLabel = "GROUP",
      description = "Group to impersonate for the operation; repeat for several.")
  List<String> asGroups = List.of();

  @Option(
      names = "--request-timeout",
      paramLabel = "SECONDS",
      defaultValue = "30",
      description = "Seconds to wait for one API request (default: ${DEFAULT-VALUE}).")
  int requestTimeoutSeconds = 30;

  /** Returns {@code --request-timeout} in seconds. */
  public int requestTimeoutSeconds() {
    return requestTimeoutSeconds;
  }

  /** Returns a client for the chosen kubeconfig and context. */
  public KubernetesClient client() {
    Config config =
        kubeconfig != null
            ? Config.fromKubeconfig(context, kubeconfig.toFile())
            : Config.autoConfigure(context);
    if (as != null) {
      config.setImpersonateUsername(as);
    }
    if (!asGroups.isEmpty()) {
      config.setImpersonateGroups(asGroups.toArray(String[]::new));
    }
    config.setRequestTimeout(requestTimeoutSeconds * 1000);
    config.setRequestRetryBackoffLimit(0);
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
