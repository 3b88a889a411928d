/** Per-pod GPU usage: process to cgroup to pod, and the Prometheus metrics. */
@NullMarked
package io.sharegpu.agent.usage;

import org.jspecify.annotations.NullMarked;
