package io.sharegpu.kubectl.report;

import io.sharegpu.api.gpunode.GpuCordon;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Edits of a GPUNode's {@code spec.cordonedGpus}: one entry per UUID, order kept.
 *
 * <p>Cordoning {@code GPU-b} in {@code [GPU-a]} gives {@code [GPU-a, GPU-b]}; cordoning {@code
 * GPU-a} again with a new reason replaces its entry in place (reason and time); uncordoning removes
 * every entry with that UUID (a hand-edited list may hold duplicates).
 */
public final class CordonList {

  private CordonList() {}

  /** Returns the list with {@code uuid} cordoned for {@code reason} at {@code time} (RFC 3339). */
  public static List<GpuCordon> cordon(
      List<GpuCordon> current, String uuid, String reason, String time) {
    List<GpuCordon> out = new ArrayList<>();
    boolean replaced = false;
    for (GpuCordon c : current) {
      if (uuid.equals(c.getUuid())) {
        if (!replaced) {
          out.add(new GpuCordon(uuid, reason, time));
          replaced = true;
        }
      } else {
        out.add(copy(c));
      }
    }
    if (!replaced) {
      out.add(new GpuCordon(uuid, reason, time));
    }
    return out;
  }

  /** Returns the list without {@code uuid}. */
  public static List<GpuCordon> uncordon(List<GpuCordon> current, String uuid) {
    List<GpuCordon> out = new ArrayList<>();
    for (GpuCordon c : current) {
      if (!uuid.equals(c.getUuid())) {
        out.add(copy(c));
      }
    }
    return out;
  }

  /** Returns true when {@code uuid} is cordoned with exactly {@code reason}. */
  public static boolean cordonedWith(List<GpuCordon> current, String uuid, String reason) {
    return current.stream()
        .anyMatch(c -> uuid.equals(c.getUuid()) && Objects.equals(reason, c.getReason()));
  }

  /** Returns true when {@code uuid} is in the list. */
  public static boolean contains(List<GpuCordon> current, String uuid) {
    return current.stream().anyMatch(c -> uuid.equals(c.getUuid()));
  }

  private static GpuCordon copy(GpuCordon c) {
    GpuCordon out = new GpuCordon();
    out.setUuid(c.getUuid());
    out.setReason(c.getReason());
    out.setTime(c.getTime());
    return out;
  }
}
