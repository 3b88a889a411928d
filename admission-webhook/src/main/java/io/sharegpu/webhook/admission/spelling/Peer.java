package io.sharegpu.webhook.admission.spelling;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The peers whose request spellings the webhook can translate, by the name an operator writes. */
public enum Peer {
  HAMI("hami"),
  KUBESHARE("kubeshare"),
  KUBESHARE2("kubeshare2"),
  GPU_MANAGER("gpu-manager"),
  GPUSHARE("gpushare");

  /** The word that enables every peer. */
  public static final String ALL = "all";

  private final String id;

  Peer(String id) {
    this.id = id;
  }

  /** Returns the name used in the chart value, the namespace label and the webhook path. */
  public String id() {
    return id;
  }

  /**
   * Parses names such as {@code ["hami", "gpushare"]} or {@code ["all"]}; blank entries are
   * skipped.
   *
   * @throws IllegalArgumentException naming the unknown entries and the accepted ones
   */
  public static Set<Peer> parse(List<String> names) {
    Set<Peer> peers = EnumSet.noneOf(Peer.class);
    List<String> unknown = new ArrayList<>();
    for (String raw : names) {
      String name = raw.trim().toLowerCase(Locale.ROOT);
      if (name.isEmpty()) {
        continue;
      }
      if (name.equals(ALL)) {
        peers.addAll(EnumSet.allOf(Peer.class));
        continue;
      }
      Peer match = null;
      for (Peer peer : values()) {
        if (peer.id.equals(name)) {
          match = peer;
        }
      }
      if (match == null) {
        unknown.add(raw);
      } else {
        peers.add(match);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "unknown peer spelling(s) "
              + unknown
              + "; use "
              + ALL
              + " or any of hami, kubeshare, kubeshare2, gpu-manager, gpushare");
    }
    return peers;
  }
}
