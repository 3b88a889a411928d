package io.sharegpu.core.policy;

import java.util.SplittableRandom;

/**
 * How the baselines score, as kube-scheduler score plugins do: an integer 0..100 per node, ties
 * broken uniformly at random. The random part is below 1, so it only orders nodes of equal integer
 * score.
 */
final class KubeScores {
  static final double MAX_SPEC_CPU = 128_000;
  static final double MAX_SPEC_GPU = 8_000;

  /** Whether equal scores are broken at random rather than by node order. */
  static final boolean RANDOM_TIES = Boolean.getBoolean("sharegpu.policy.randomTies");

  private final SplittableRandom random;

  KubeScores(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** The integer score, plus a random tie-break in [0, 0.5) with random ties. */
  double node(long score) {
    return RANDOM_TIES ? score + 0.5 * random.nextDouble() : score;
  }

  double next() {
    return random.nextDouble();
  }

  static double sigmoid(double x) {
    return 1 / (1 + Math.exp(-x));
  }
}
