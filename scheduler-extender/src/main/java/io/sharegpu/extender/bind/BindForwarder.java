package io.sharegpu.extender.bind;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * Sends a {@code /bind} request body unchanged to the bind leader's verb port and returns the
 * leader's answer. The request carries {@link #FORWARDED_HEADER} so the receiver never forwards it
 * again. With mutual TLS on the verb port the forwarder presents this replica's certificate ({@link
 * #useTls}); a new context (certificates rotated on disk) replaces the old one for later binds.
 */
public final class BindForwarder {

  /** Header naming the replica that forwarded a bind. */
  public static final String FORWARDED_HEADER = "X-ShareGPU-Forwarded-By";

  private final Duration connectTimeout;
  private final Duration timeout;
  private volatile HttpClient http;

  /** Creates a forwarder with the given connect and request timeouts. */
  public BindForwarder(Duration connectTimeout, Duration timeout) {
    this.connectTimeout = connectTimeout;
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
  }

  /** Forwards over HTTPS with {@code ssl} from now on (the leader's advertise URL is https). */
  public void useTls(SSLContext ssl) {
    this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).sslContext(ssl).build();
  }

  /**
   * POSTs {@code body} to {@code leaderUrl + "/bind"}.
   *
   * @return the leader's response body (an ExtenderBindingResult)
   * @throws IOException when the leader cannot be reached or answers other than 200
   */
  public String forward(String leaderUrl, byte[] body, String from)
      throws IOException, InterruptedException {
    String base =
        leaderUrl.endsWith("/") ? leaderUrl.substring(0, leaderUrl.length() - 1) : leaderUrl;
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(base + "/bind"))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header(FORWARDED_HEADER, from)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
    if (resp.statusCode() != 200) {
      throw new IOException("the leader answered HTTP " + resp.statusCode() + ": " + resp.body());
    }
    return resp.body();
  }
}
