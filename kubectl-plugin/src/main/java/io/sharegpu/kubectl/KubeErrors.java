package io.sharegpu.kubectl;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** One-line messages for API server failures, naming the permission that is missing. */
public final class KubeErrors {

  private KubeErrors() {}

  /**
   * Returns e.g. {@code forbidden (HTTP 403): User "alice" cannot list resource "gpunodes" ...} or
   * {@code cannot reach the API server: Connection refused}.
   */
  public static String describe(KubernetesClientException e) {
    int code = e.getCode();
    String message =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : rootMessage(e);
    if (code == 403) {
      return "forbidden (HTTP 403): "
          + message
          + " — ask for that permission, or check with: kubectl auth can-i --list";
    }
    if (code == 401) {
      return "not authenticated (HTTP 401): check the kubeconfig's credentials";
    }
    if (code <= 0) {
      return "cannot reach the API server: " + rootMessage(e);
    }
    return "HTTP " + code + ": " + message;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }
}
