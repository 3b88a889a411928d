package io.sharegpu.extender.web;

import java.util.regex.Pattern;

/** Kubernetes' rules for object names, checked before a name reaches the API server. */
public final class KubernetesNames {

  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern UID = Pattern.compile("[A-Za-z0-9._-]+");

  private KubernetesNames() {}

  /** A DNS-1123 subdomain of at most 253 characters: pod and node names. */
  public static boolean isSubdomain(String s) {
    return !s.isEmpty() && s.length() <= 253 && SUBDOMAIN.matcher(s).matches();
  }

  /** A DNS-1123 label of at most 63 characters: namespaces. */
  public static boolean isLabel(String s) {
    return !s.isEmpty() && s.length() <= 63 && LABEL.matcher(s).matches();
  }

  /** A UID: Kubernetes writes UUIDs; letters, digits, '.', '_' and '-', at most 128. */
  public static boolean isUid(String s) {
    return !s.isEmpty() && s.length() <= 128 && UID.matcher(s).matches();
  }
}
