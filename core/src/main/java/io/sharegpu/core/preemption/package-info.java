/**
 * Share-aware preemption: which lower-priority pods to evict so that a pod fits a node on real GPUs
 * ({@link io.sharegpu.core.preemption.VictimSelector}), and whether a pod that does not fit a node
 * could fit there at all once pods are evicted ({@link
 * io.sharegpu.core.preemption.ShortfallClassifier}). Both apply the fit rules of {@link
 * io.sharegpu.core.placement.Placement}; nothing here changes the ledger.
 */
@NullMarked
package io.sharegpu.core.preemption;

import org.jspecify.annotations.NullMarked;
