package io.sharegpu.agent.gpu;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** MIG profile arithmetic shared by the NVML reader and the nvidia-smi fallback. */
final class MigProfiles {

  /** Compute slices of a full GPU when the driver does not say (A100, H100, H200: 7). */
  static final int DEFAULT_SLICES = 7;

  private static final Pattern PROFILE = Pattern.compile("(\\d+)g\\.(\\d+)gb");

  private MigProfiles() {}

  /**
   * Returns the compute share of a MIG instance in thousandths, rounded down so shares never add up
   * to more than the GPU: 1 of 7 slices = 142, 3 of 7 = 428, 7 of 7 = 1000.
   */
  static int computeMilli(int slices, int totalSlices) {
    int total = totalSlices > 0 ? totalSlices : DEFAULT_SLICES;
    if (slices <= 0 || slices > total) {
      throw new IllegalArgumentException("MIG slices " + slices + " of " + total);
    }
    return 1000 * slices / total;
  }

  /** Returns the compute slices of a profile name: {@code 3g.71gb} = 3. */
  static int slices(String profile) {
    Matcher m = PROFILE.matcher(profile);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a MIG profile: " + profile);
    }
    return Integer.parseInt(m.group(1));
  }

  /**
   * Returns the memory a profile name promises, bytes, read as decimal gigabytes so it never
   * exceeds the real size: {@code 1g.18gb} = 18 x 10^9 bytes (about 17166 MiB).
   */
  static long memoryBytes(String profile) {
    Matcher m = PROFILE.matcher(profile);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a MIG profile: " + profile);
    }
    return Long.parseLong(m.group(2)) * 1_000_000_000L;
  }
}
