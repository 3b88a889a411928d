/** JMH benchmarks of core's hot paths: filter + prioritize, place + commit, ledger rebuild. */
@NullMarked
package io.sharegpu.benchmarks;

import org.jspecify.annotations.NullMarked;
