package io.sharegpu.controller.model;

/**
 * A Kubernetes Event to record on a SharePod.
 *
 * @param type {@code Normal} or {@code Warning}
 * @param reason UpperCamelCase reason, e.g. {@code FailedScheduling}
 * @param message what happened, in words
 */
public record SharePodEvent(String type, String reason, String message) {

  public static final String NORMAL = "Normal";
  public static final String WARNING = "Warning";

  public static SharePodEvent normal(String reason, String message) {
    return new SharePodEvent(NORMAL, reason, message);
  }

  public static SharePodEvent warning(String reason, String message) {
    return new SharePodEvent(WARNING, reason, message);
  }
}
