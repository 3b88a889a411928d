package io.sharegpu.extender.metrics;

import io.sharegpu.extender.cluster.ClusterView;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Refreshes the per-GPU gauges every few seconds. */
@Component
public class MetricsRefresher {

  private final ExtenderMetrics metrics;
  private final ClusterView view;

  /** Creates the refresher. */
  public MetricsRefresher(ExtenderMetrics metrics, ClusterView view) {
    this.metrics = metrics;
    this.view = view;
  }

  /** Copies the ledger's per-GPU usage into the gauges. */
  @Scheduled(fixedDelayString = "${sharegpu.extender.metrics-refresh:5s}")
  public void refresh() {
    metrics.refresh(view);
  }
}
