package io.sharegpu.extender.ui;

import io.sharegpu.extender.cluster.ClusterView;
import io.sharegpu.extender.debug.DebugController;
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
 * If-None-Match}; the answer is built again only when the ledger changed, and at most once a
 * second.
 */
@RestController
class UiController {

  /** The data is built again at most this often (nanoseconds), however fast the ledger moves. */
  static final long MIN_REBUILD_NANOS = 1_000_000_000L;

  private final ClusterView view;
  private final DebugController debug;
  private final JsonMapper mapper;
  private final String boot = UUID.randomUUID().toString().substring(0, 8);
  private volatile @Nullable Built built;

  UiController(ClusterView view, DebugController debug, JsonMapper mapper) {
    this.view = view;
    this.debug = debug;
    this.mapper = mapper;
  }

  /** The data as sent: its ledger versions, ETag, plain and gzip bytes. */
  private record Built(String key, String etag, byte[] json, byte[] gzip, long builtAt) {}

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
    String key = view.withLedger(l -> l.version() + "-" + l.nodesVersion());
    Built b = built;
    long now = System.nanoTime();
    if (b != null && (b.key().equals(key) || now - b.builtAt() < MIN_REBUILD_NANOS)) {
      return b;
    }
    synchronized (this) {
      b = built;
      if (b != null
          && (b.key().equals(key) || System.nanoTime() - b.builtAt() < MIN_REBUILD_NANOS)) {
        return b;
      }
      String etag = "\"" + boot + "-" + key + "\"";
      byte[] json =
          mapper.writeValueAsBytes(
              AllocationPage.of(
                  key, mapper.valueToTree(debug.nodes()), mapper.valueToTree(debug.allocations())));
      b = new Built(key, etag, json, gzip(json), System.nanoTime());
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
