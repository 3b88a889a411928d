package io.sharegpu.core.placement;

/**
 * A promise by a {@link PlacementPolicy} that lets {@link Placement} score alike nodes once: its
 * {@link PlacementPolicy#score} (and {@link GpuPreference#gpuScore}) depend only on what {@link
 * io.sharegpu.core.ledger.NodeUsage#stateClass} counts — the GPUs' models, capacities, health, MIG
 * roles, held compute and memory and whether they are held whole or in use, in any order, and the
 * node's host capacity and use, and on the pod's demand — never on names, UUIDs, GPU indexes or
 * order, the pods holding the GPUs, or the number of calls (no random tie-breaks), and give exactly
 * the same number for the same state.
 *
 * <p>{@link Placement#filter} and {@link Placement#prioritize} then evaluate one node per state and
 * pod, and reuse the answer for every other node in that state, except where the GPU choice depends
 * on the GPUs' order (two unlike GPUs score within rounding of each other): those nodes are
 * evaluated one by one. Decisions are the same as without the promise.
 */
public interface StateScored {}
