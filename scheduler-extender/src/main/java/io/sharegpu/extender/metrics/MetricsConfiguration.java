package io.sharegpu.extender.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.scheduling.SchedulingState;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the extender's meters from {@code sharegpu.metrics.*}. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(MetricsProperties.class)
public class MetricsConfiguration {

  @Bean
  ExtenderMetrics extenderMetrics(
      MeterRegistry registry, ClusterFeed feed, SchedulingState state, MetricsProperties props) {
    ExtenderMetrics metrics = new ExtenderMetrics(registry, props);
    metrics.watch(feed, state);
    return metrics;
  }
}
