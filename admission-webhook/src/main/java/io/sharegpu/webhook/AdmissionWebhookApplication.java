package io.sharegpu.webhook;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * ShareGPU's mutating admission webhook: {@code POST /mutate-pods} answers kube-apiserver's
 * AdmissionReview for pods that request sharegpu.io resources.
 */
@SpringBootApplication
public class AdmissionWebhookApplication {

  public static void main(String[] args) {
    SpringApplication.run(AdmissionWebhookApplication.class, args);
  }
}
