package io.sharegpu.webhook.admission.spelling;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * One peer's way of asking for GPU: which keys it reads and how a pod written in it translates into
 * ShareGPU's request. Implementations are pure and stateless.
 */
public interface Spelling {

  /** Returns the peer this spelling belongs to. */
  Peer peer();

  /**
   * Returns the request keys of this spelling the pod carries (resources as {@code container/key},
   * annotations and labels as their key), empty when the pod is not written for this peer. Keys
   * that only refine a request (UUID or model annotations) do not count.
   */
  List<String> requestKeys(Pod pod);

  /** Translates a pod for which {@link #requestKeys} is not empty. */
  Translation translate(Pod pod);
}
