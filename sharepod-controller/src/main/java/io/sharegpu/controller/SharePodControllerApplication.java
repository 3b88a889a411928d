package io.sharegpu.controller;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/** The SharePod controller: turns SharePods into pods and reports their status. */
@SpringBootApplication
@EnableConfigurationProperties(ControllerProperties.class)
public class SharePodControllerApplication {

  public static void main(String[] args) {
    SpringApplication.run(SharePodControllerApplication.class, args);
  }
}
