package io.sharegpu.webhook.web;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration under {@code sharegpu.webhook.requests}.
 *
 * @param maxBodySize the largest AdmissionReview accepted (default 6MB): kube-apiserver accepts
 *     request bodies up to 3 MiB, and a review of an UPDATE carries the object and the old object
 */
@ConfigurationProperties(prefix = "sharegpu.webhook.requests")
public record RequestLimitProperties(@Nullable DataSize maxBodySize) {

  /** The default limit. */
  public static final DataSize DEFAULT_MAX_BODY = DataSize.ofMegabytes(6);

  /** Returns the limit in bytes. */
  public long maxBodyBytes() {
    return (maxBodySize == null ? DEFAULT_MAX_BODY : maxBodySize).toBytes();
  }
}
