package io.sharegpu.extender.ui;

import io.sharegpu.extender.debug.DebugController;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * The read-only allocation page ({@code /ui/}, static files under {@code static/ui/}) and its data
 * ({@code /ui/api/allocations}, {@link AllocationPage}). The page polls the data with {@code
 * If-None-Match}; the answer is built again only when the ledger changed, at most once a second and
 * never more than a fifth of the time.
 */
@RestController
class UiController {

  /** The data is built again at most this often (nanoseconds), however fast the ledger moves. */
  static final long MIN_REBUILD_NANOS = 1_000_000_000L;

  /**
   * And at least this many times its last build time apart: building it costs at most a fifth of a
   * core, however many pages are open and however fast the ledger moves.
   */
  static final long REBUILD_SPACING = 5;

  private final SchedulingState state;
  private final DebugController debug;
  private final JsonMapper mapper;
  private final String boot = UUID.randomUUID().toString().substring(0, 8);
  private volatile @Nullable Built built;

  UiController(SchedulingState state, DebugController debug, JsonMapper mapper) {
    this.state = state;
    this.debug = debug;
    this.mapper = mapper;
  }

  /** The data as sent: its ledger versions, ETag, plain and gzip bytes. */
  private record Built(
      String key, String etag, byte[] json, byte[] gzip, long builtAt, long buildNanos) {
    /** Whether it may still be served: the ledger has not moved, or it was built too recently. */
    boolean fresh(String ledgerKey, long now) {
      return key.equals(ledgerKey)
          || now - builtAt < Math.max(MIN_REBUILD_NANOS, REBUILD_SPACING * buildNanos);
    }
  }

  /** {@code /ui} → {@code /ui/}, so that the page's relative addresses resolve under it. */
  @GetMapping("/ui")
  ResponseEntity<Void> redirect() {
    return ResponseEntity.status(HttpStatus.FOUND).location(URI.create("/ui/")).build();
  }

  /** The page. */
  @GetMapping(value = "/ui/", produces = MediaType.TEXT_HTML_VALUE)
  ResponseEntity<byte[]> page() throws IOException {
    try (InputStream in = new ClassPathResource("static/ui/index.html").getInputStream()) {
      return ResponseEntity.ok()
          .cacheControl(CacheControl.noCache())
          .contentType(MediaType.TEXT_HTML)
          .body(in.readAllBytes());
    }
  }

  /** The allocations in the page's compact form; 304 when the page has them already. */
  @GetMapping("/ui/api/allocations")
  ResponseEntity<byte[]> allocations(
      @RequestHeader(value = HttpHeaders.IF_NONE_MATCH, required = false)
          @Nullable String ifNoneMatch,
      @RequestHeader(value = HttpHeaders.ACCEPT_ENCODING, required = false)
          @Nullable String acceptEncoding) {
    Built b = current();
    if (b.etag().equals(ifNoneMatch)) {
      return ResponseEntity.status(HttpStatus.NOT_MODIFIED)
          .eTag(b.etag())
          .cacheControl(CacheControl.noCache())
          .build();
    }
    boolean gzip = acceptEncoding != null && acceptEncoding.contains("gzip");
    ResponseEntity.BodyBuilder ok =
        ResponseEntity.ok()
            .eTag(b.etag())
            .cacheControl(CacheControl.noCache())
            .contentType(MediaType.APPLICATION_JSON)
            .header(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
    if (gzip) {
      return ok.header(HttpHeaders.CONTENT_ENCODING, "gzip").body(b.gzip());
    }
    return ok.body(b.json());
  }

  private Built current() {
    String key = state.withLedger(l -> l.version() + "-" + l.nodesVersion());
    Built b = built;
    if (b != null && b.fresh(key, System.nanoTime())) {
      return b;
    }
    synchronized (this) {
      b = built;
      if (b != null && b.fresh(key, System.nanoTime())) {
        return b;
      }
      long start = System.nanoTime();
      String etag = "\"" + boot + "-" + key + "\"";
      byte[] json =
          mapper.writeValueAsBytes(
              AllocationPage.of(
                  key, mapper.valueToTree(debug.nodes()), mapper.valueToTree(debug.allocations())));
      byte[] gzip = gzip(json);
      long end = System.nanoTime();
      b = new Built(key, etag, json, gzip, end, end - start);
      built = b;
      return b;
    }
  }

  static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 4 + 64);
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
