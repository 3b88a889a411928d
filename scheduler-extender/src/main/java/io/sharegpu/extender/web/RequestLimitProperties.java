package io.sharegpu.extender.web;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration under {@code sharegpu.extender.requests}.
 *
 * @param maxBodySize the largest request body accepted (default 4MB); a filter call for 5,000 nodes
 *     with a full Pod is about a third of a MiB (docs/security.md, "Hostile input")
 */
@ConfigurationProperties(prefix = "sharegpu.extender.requests")
public record RequestLimitProperties(@Nullable DataSize maxBodySize) {

  /** The default limit. */
  public static final DataSize DEFAULT_MAX_BODY = DataSize.ofMegabytes(4);

  /** Returns the limit in bytes. */
  public long maxBodyBytes() {
    return (maxBodySize == null ? DEFAULT_MAX_BODY : maxBodySize).toBytes();
  }
}
