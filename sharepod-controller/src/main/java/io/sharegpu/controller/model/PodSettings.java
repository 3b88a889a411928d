package io.sharegpu.controller.model;

/**
 * The parts of the controller's configuration that shape a SharePod's pod.
 *
 * @param schedulerName the kube-scheduler profile that calls the ShareGPU extender
 * @param mpsPipeDirectory host path of the MPS pipe directory, mounted at the same path
 */
public record PodSettings(String schedulerName, String mpsPipeDirectory) {

  public PodSettings {
    if (schedulerName.isBlank()) {
      throw new IllegalArgumentException("schedulerName must not be blank");
    }
    if (!mpsPipeDirectory.startsWith("/")) {
      throw new IllegalArgumentException(
          "mpsPipeDirectory must be an absolute path, got \"" + mpsPipeDirectory + "\"");
    }
  }
}
