package io.sharegpu.extender.metrics;

import io.sharegpu.extender.scheduling.SchedulingState;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Refreshes the per-GPU gauges every few seconds. */
@Component
public class MetricsRefresher {

  private final ExtenderMetrics metrics;
  private final SchedulingState state;

  /** Creates the refresher. */
  public MetricsRefresher(ExtenderMetrics metrics, SchedulingState state) {
    this.metrics = metrics;
    this.state = state;
  }

  /** Copies the ledger's per-GPU usage into the gauges. */
  @Scheduled(fixedDelayString = "${sharegpu.extender.metrics-refresh:5s}")
  public void refresh() {
    metrics.refresh(state);
  }
}
