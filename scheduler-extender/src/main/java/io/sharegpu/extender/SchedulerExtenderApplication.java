package io.sharegpu.extender;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The ShareGPU scheduler extender: kube-scheduler's filter, prioritize and bind over HTTP. */
@SpringBootApplication
@EnableScheduling
@EnableConfigurationProperties(ExtenderProperties.class)
public class SchedulerExtenderApplication {

  /** Starts the extender. */
  public static void main(String[] args) {
    SpringApplication.run(SchedulerExtenderApplication.class, args);
  }
}
