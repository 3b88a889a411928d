package io.sharegpu.core.placement;

/**
 * Why a pod may not use a GPU however idle it is: the GPU's health, its MIG role, the operator's
 * cordon, or the pod's models, pins and excludes. Hot loops carry a set of bars as the bits of an
 * {@code int} ({@link #bit()}), so that testing a GPU allocates nothing; the words list them in
 * this order.
 */
enum GpuBar {
  UNHEALTHY,
  /** Split into MIG instances: only its instances are used. */
  MIG_PARENT,
  /** A MIG instance, for a whole-GPU request only. */
  MIG_INSTANCE,
  MODEL,
  NOT_PINNED,
  EXCLUDED,
  CORDONED;

  /** This bar's bit in an {@code int} set of bars. */
  int bit() {
    return 1 << ordinal();
  }

  /** True when {@code bars} holds this bar. */
  boolean in(int bars) {
    return (bars & bit()) != 0;
  }
}
