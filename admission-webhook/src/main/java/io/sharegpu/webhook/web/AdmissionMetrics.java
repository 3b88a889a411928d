package io.sharegpu.webhook.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Counts admissions by result as {@code sharegpu_webhook_admissions_total{result}}: {@code not_gpu}
 * (no sharegpu.io resources), {@code allowed} (GPU pod already complete), {@code patched}, {@code
 * denied}, {@code ignored} (not a pod CREATE), {@code error} (unreadable review).
 */
@Component
class AdmissionMetrics {

  static final String IGNORED = "ignored";
  static final String ERROR = "error";
  static final List<String> RESULTS =
      List.of("not_gpu", "allowed", "patched", "denied", IGNORED, ERROR);

  private final Map<String, Counter> counters;

  AdmissionMetrics(MeterRegistry registry) {
    this.counters =
        RESULTS.stream()
            .collect(
                Collectors.toUnmodifiableMap(
                    Function.identity(),
                    result ->
                        Counter.builder("sharegpu.webhook.admissions")
                            .description("Pod admission reviews answered, by result")
                            .tag("result", result)
                            .register(registry)));
  }

  void record(String result) {
    Counter counter = counters.get(result);
    if (counter == null) {
      throw new IllegalArgumentException("unknown admission result " + result);
    }
    counter.increment();
  }
}
