package io.sharegpu.kubectl.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.api.gpunode.GpuCordon;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CordonListTest {

  private static final String T1 = "2026-12-05T08:00:00Z";
  private static final String T2 = "2026-12-05T09:00:00Z";

  @Test
  void cordonAppendsANewGpuAndKeepsTheOthers() {
    List<GpuCordon> list = List.of(new GpuCordon("GPU-a", "old", T1));
    List<GpuCordon> after = CordonList.cordon(list, "GPU-b", "Xid 79", T2);
    assertThat(after).extracting(GpuCordon::getUuid).containsExactly("GPU-a", "GPU-b");
    assertThat(after.get(1).getReason()).isEqualTo("Xid 79");
    assertThat(after.get(1).getTime()).isEqualTo(T2);
  }

  @Test
  void cordonAgainReplacesTheEntryInPlaceAndDropsDuplicates() {
    List<GpuCordon> list =
        List.of(
            new GpuCordon("GPU-a", "old", T1),
            new GpuCordon("GPU-b", "b", T1),
            new GpuCordon("GPU-a", "dup", T1));
    List<GpuCordon> after = CordonList.cordon(list, "GPU-a", "new", T2);
    assertThat(after).extracting(GpuCordon::getUuid).containsExactly("GPU-a", "GPU-b");
    assertThat(after.get(0).getReason()).isEqualTo("new");
    assertThat(after.get(0).getTime()).isEqualTo(T2);
  }

  @Test
  void uncordonRemovesEveryEntryOfTheGpuOnly() {
    List<GpuCordon> list =
        List.of(
            new GpuCordon("GPU-a", "x", T1),
            new GpuCordon("GPU-b", "y", T1),
            new GpuCordon("GPU-a", "z", T1));
    assertThat(CordonList.uncordon(list, "GPU-a"))
        .extracting(GpuCordon::getUuid)
        .containsExactly("GPU-b");
    assertThat(CordonList.uncordon(list, "GPU-c")).hasSize(3);
  }

  @Test
  void editsNeverChangeTheListTheyAreGiven() {
    List<GpuCordon> list = new ArrayList<>(List.of(new GpuCordon("GPU-a", "x", T1)));
    CordonList.cordon(list, "GPU-a", "y", T2);
    CordonList.uncordon(list, "GPU-a");
    assertThat(list).hasSize(1);
    assertThat(list.get(0).getReason()).isEqualTo("x");
  }

  @Test
  void tellsWhetherAGpuIsCordonedWithAReason() {
    List<GpuCordon> list = List.of(new GpuCordon("GPU-a", "x", T1));
    assertThat(CordonList.cordonedWith(list, "GPU-a", "x")).isTrue();
    assertThat(CordonList.cordonedWith(list, "GPU-a", "y")).isFalse();
    assertThat(CordonList.contains(list, "GPU-a")).isTrue();
    assertThat(CordonList.contains(list, "GPU-b")).isFalse();
  }
}
