/**
 * The placement of other GPU-sharing schedulers (Aliyun gpushare, HAMi, KubeShare 1.x), rebuilt
 * from their documented behaviour so that the simulator can replay the trace on them next to
 * ShareGPU's own policies. Simulator only: the product never runs these. Where each rule comes from
 * is in {@code docs/peers.md}; {@link io.sharegpu.simulator.peers.PeerPolicies} registers them.
 */
@NullMarked
package io.sharegpu.simulator.peers;

import org.jspecify.annotations.NullMarked;
