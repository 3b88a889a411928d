package io.sharegpu.webhook;

import io.sharegpu.webhook.admission.PodAdmissionPolicy;
import io.sharegpu.webhook.admission.spelling.Peer;
import java.util.Set;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the pure admission policy from {@link WebhookProperties}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(WebhookProperties.class)
class WebhookConfiguration {

  @Bean
  PodAdmissionPolicy podAdmissionPolicy(WebhookProperties properties) {
    return new PodAdmissionPolicy(
        properties.schedulerName(),
        properties.mountMpsPipe(),
        Peer.parse(properties.translate()),
        Set.copyOf(properties.partitionSchedulerNames()));
  }
}
