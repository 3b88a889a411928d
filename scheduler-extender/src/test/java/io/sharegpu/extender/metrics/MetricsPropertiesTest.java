package io.sharegpu.extender.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** {@code sharegpu.metrics.*} as the chart sets it (environment variables) and its defaults. */
class MetricsPropertiesTest {

  private static MetricsProperties bind(Map<String, Object> env) {
    SystemEnvironmentPropertySource source =
        new SystemEnvironmentPropertySource(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env);
    return new Binder(ConfigurationPropertySources.from(source))
        .bindOrCreate("sharegpu.metrics", MetricsProperties.class);
  }

  @Test
  void bindsTheEnvironmentVariablesTheChartSets() {
    assertThat(
            bind(
                Map.of(
                    "SHAREGPU_METRICS_PERGPU", "true",
                    "SHAREGPU_METRICS_PERGPUMAXSERIES", "600")))
        .isEqualTo(new MetricsProperties(true, 600));
  }

  @Test
  void perGpuSeriesAreOffAndUncappedByDefault() {
    assertThat(bind(Map.of())).isEqualTo(MetricsProperties.DEFAULTS);
  }
}
