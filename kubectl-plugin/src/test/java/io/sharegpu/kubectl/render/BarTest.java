package io.sharegpu.kubectl.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BarTest {

  @Test
  void fillsToTheNearestCellButNeverFullBelowOneHundredNorEmptyAboveZero() {
    assertThat(Bar.of(250, 1000, 8, Style.PLAIN)).isEqualTo("[##......]");
    assertThat(Bar.of(0, 1000, 8, Style.PLAIN)).isEqualTo("[........]");
    assertThat(Bar.of(1, 1000, 8, Style.PLAIN)).isEqualTo("[#.......]");
    assertThat(Bar.of(999, 1000, 8, Style.PLAIN)).isEqualTo("[#######.]");
    assertThat(Bar.of(1000, 1000, 8, Style.PLAIN)).isEqualTo("[########]");
    assertThat(Bar.of(5, 0, 4, Style.PLAIN)).isEqualTo("[....]");
  }

  @Test
  void formatsGpusAndGibibytes() {
    assertThat(Bar.gpus(250, 1000)).isEqualTo("0.25/1");
    assertThat(Bar.gpus(3000, 8000)).isEqualTo("3/8");
    assertThat(Bar.milli(143)).isEqualTo("0.143");
    assertThat(Bar.gib(10240, 81559)).isEqualTo("10.0/79.6Gi");
  }

  @Test
  void colourOnlyOnATerminalWithoutNoColorOrDumbTerm() {
    assertThat(Style.forTerminal(false, Map.of())).isSameAs(Style.PLAIN);
    assertThat(Style.forTerminal(true, Map.of())).isSameAs(Style.ANSI);
    assertThat(Style.forTerminal(true, Map.of("NO_COLOR", "1"))).isSameAs(Style.PLAIN);
    assertThat(Style.forTerminal(true, Map.of("NO_COLOR", ""))).isSameAs(Style.ANSI);
    assertThat(Style.forTerminal(true, Map.of("TERM", "dumb"))).isSameAs(Style.PLAIN);
  }

  @Test
  void aTestRunIsNoTerminalSoTheDetectedStyleIsPlain() {
    assertThat(Style.detect()).isSameAs(Style.PLAIN);
  }
}
