/** Replays the Alibaba GPU trace on ShareGPU's placement code and measures placement latency. */
@NullMarked
package io.sharegpu.simulator;

import org.jspecify.annotations.NullMarked;
