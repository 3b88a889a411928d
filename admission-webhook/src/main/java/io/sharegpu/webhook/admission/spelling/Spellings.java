package io.sharegpu.webhook.admission.spelling;

import java.util.List;

/** The registry: every peer spelling the webhook knows, one entry per {@link Peer}. */
public final class Spellings {

  /** All spellings, in {@link Peer} order. */
  public static final List<Spelling> ALL =
      List.of(
          new HamiSpelling(),
          KubeShareSpelling.v1(),
          KubeShareSpelling.v2(),
          new GpuManagerSpelling(),
          new GpuShareSpelling());

  private Spellings() {}
}
