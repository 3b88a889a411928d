package io.sharegpu.extender.e2e;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A fault-injecting HTTPS proxy in front of the test cluster's API server, plain JDK.
 *
 * <p>It terminates TLS with the API server's own serving certificate and key (SAN 127.0.0.1, signed
 * by the test cluster's CA, which the kubeconfig already trusts), so a kubeconfig whose {@code
 * server} points at the proxy works unchanged, and it reads each HTTP/1.1 request. It opens one
 * upstream TLS connection per request, authenticated with the admin client certificate, and asks
 * for {@code Connection: close} so that the upstream answer ends at EOF and needs no parsing (a
 * TCP-level proxy could reset connections but could not tell a Binding from a list inside TLS;
 * WireMock is not on the classpath).
 *
 * <p>Faults: each {@code POST .../bindings} (or {@code .../pods/NAME/binding}) gets the {@link
 * BindingFault} the decider picks for its sequence number; watch connections ({@code watch=true})
 * are tracked and can be reset (TCP RST) or stalled (no byte forwarded) on demand.
 */
final class FaultProxy implements AutoCloseable {

  /** What happens to one Binding create. */
  enum BindingFault {
    /** Forwarded and answered normally. */
    NONE,
    /** Answered 500 without reaching the API server. */
    ANSWER_500,
    /** Answered 409 without reaching the API server. */
    ANSWER_409,
    /** Forwarded (the Binding happens), then the client's connection is reset: answer lost. */
    RESET_AFTER_FORWARD,
    /** Forwarded, the answer held past the client's timeout, then dropped. */
    HOLD_AFTER_FORWARD,
    /** Held past the client's timeout, then forwarded: a late Binding. */
    HOLD_BEFORE_FORWARD
  }

  private static final Pattern BINDING =
      Pattern.compile("/api/v1/namespaces/[^/]+/(bindings|pods/[^/]+/binding)(\\?.*)?");

  private final SSLContext upstreamTls;
  private final int upstreamPort;
  private final ServerSocket server;
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final Set<Socket> watches = ConcurrentHashMap.newKeySet();
  private final Map<BindingFault, AtomicInteger> injected = new EnumMap<>(BindingFault.class);
  private final AtomicInteger bindings = new AtomicInteger();
  private final AtomicInteger watchResets = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private volatile IntFunction<BindingFault> decider = n -> BindingFault.NONE;
  private volatile long holdMillis = 5000;
  private volatile long stalledUntilNanos;
  private volatile boolean closed;

  FaultProxy(Path pki, int upstreamPort) {
    this.upstreamPort = upstreamPort;
    for (BindingFault f : BindingFault.values()) {
      injected.put(f, new AtomicInteger());
    }
    try {
      upstreamTls = context(pki, "admin");
      SSLContext serving = context(pki, "apiserver");
      SSLServerSocket s =
          (SSLServerSocket)
              serving
                  .getServerSocketFactory()
                  .createServerSocket(0, 128, InetAddress.getLoopbackAddress());
      s.setNeedClientAuth(false);
      server = s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot load the test cluster's certificates", e);
    }
    Thread acceptor = new Thread(this::accept, "fault-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Writes a copy of {@code kubeconfig} whose server is this proxy. */
  Path kubeconfig(Path kubeconfig, Path out) throws IOException {
    String text =
        Files.readString(kubeconfig)
            .replaceAll(
                "server: https://127\\.0\\.0\\.1:\\d+", "server: https://127.0.0.1:" + port());
    Files.writeString(out, text);
    return out;
  }

  void bindingFaults(IntFunction<BindingFault> decider) {
    this.decider = decider;
  }

  void holdMillis(long millis) {
    this.holdMillis = millis;
  }

  int injected(BindingFault f) {
    return injected.get(f).get();
  }

  int bindings() {
    return bindings.get();
  }

  int requests() {
    return requests.get();
  }

  int watchResets() {
    return watchResets.get();
  }

  int openWatches() {
    return watches.size();
  }

  /** Resets (TCP RST) every open watch connection; returns how many. */
  int resetWatches() {
    int n = 0;
    for (Socket s : List.copyOf(watches)) {
      watches.remove(s);
      reset(s);
      n++;
    }
    watchResets.addAndGet(n);
    return n;
  }

  /** Forwards no watch byte for {@code millis}. */
  void stallWatches(long millis) {
    stalledUntilNanos = System.nanoTime() + millis * 1_000_000;
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
    resetWatches();
    pool.shutdownNow();
  }

  // ------------------------------------------------------------------------------- forwarding

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        pool.execute(() -> serve(client));
      } catch (IOException e) {
        if (!closed) {
          sleep(50);
        }
      }
    }
  }

  private void serve(Socket client) {
    try (client) {
      InputStream in = new BufferedInputStream(client.getInputStream());
      OutputStream out = client.getOutputStream();
      while (!closed) {
        Request r = Request.read(in);
        if (r == null) {
          return;
        }
        requests.incrementAndGet();
        if (r.method.equals("POST") && BINDING.matcher(r.target).matches()) {
          binding(r, client, out);
          return;
        }
        boolean watch = r.target.contains("watch=true") || r.target.contains("watch=1");
        if (watch || r.upgrade) {
          stream(r, client, in, out, watch);
          return;
        }
        forward(r, out);
        return;
      }
    } catch (IOException e) {
      // a reset or a closed client: nothing to do
    }
  }

  private void binding(Request r, Socket client, OutputStream out) throws IOException {
    int n = bindings.getAndIncrement();
    BindingFault f = decider.apply(n);
    injected.get(f).incrementAndGet();
    switch (f) {
      case NONE -> forward(r, out);
      case ANSWER_500 -> answer(out, 500, "InternalError", "injected by the fault proxy");
      case ANSWER_409 -> answer(out, 409, "Conflict", "injected by the fault proxy");
      case RESET_AFTER_FORWARD -> {
        roundTrip(r);
        reset(client);
      }
      case HOLD_AFTER_FORWARD -> {
        roundTrip(r);
        sleep(holdMillis);
        reset(client);
      }
      case HOLD_BEFORE_FORWARD -> {
        sleep(holdMillis);
        roundTrip(r);
        reset(client);
      }
    }
  }

  private void forward(Request r, OutputStream out) throws IOException {
    out.write(roundTrip(r));
    out.flush();
  }

  /** Sends the request upstream and returns the whole answer (upstream closes after it). */
  private byte[] roundTrip(Request r) throws IOException {
    try (Socket up = upstream()) {
      up.getOutputStream().write(r.bytes(false));
      up.getOutputStream().flush();
      return up.getInputStream().readAllBytes();
    }
  }

  /** A watch or an upgraded connection: bytes both ways until either side ends. */
  private void stream(Request r, Socket client, InputStream in, OutputStream out, boolean watch)
      throws IOException {
    try (Socket up = upstream()) {
      if (watch) {
        watches.add(client);
      }
      up.getOutputStream().write(r.bytes(r.upgrade));
      up.getOutputStream().flush();
      if (r.upgrade) {
        pool.execute(() -> pump(in, up, false));
      }
      InputStream upIn = up.getInputStream();
      byte[] buf = new byte[8192];
      int k;
      while ((k = upIn.read(buf)) >= 0) {
        while (watch && System.nanoTime() < stalledUntilNanos) {
          sleep(100);
        }
        out.write(buf, 0, k);
        out.flush();
      }
    } finally {
      watches.remove(client);
    }
  }

  private static void pump(InputStream from, Socket to, boolean unused) {
    try {
      from.transferTo(to.getOutputStream());
    } catch (IOException e) {
      // either side gone
    }
  }

  private Socket upstream() throws IOException {
    Socket s =
        upstreamTls.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), upstreamPort);
    s.setTcpNoDelay(true);
    return s;
  }

  private static void answer(OutputStream out, int code, String reason, String message)
      throws IOException {
    String body =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            + "\"message\":\""
            + message
            + "\",\"reason\":\""
            + reason
            + "\",\"code\":"
            + code
            + "}";
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 "
            + code
            + " "
            + reason
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + b.length
            + "\r\nConnection: close\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(b);
    out.flush();
  }

  private static void reset(Socket s) {
    try {
      s.setSoLinger(true, 0);
      s.close();
    } catch (IOException e) {
      // already gone
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One HTTP/1.1 request with its body. */
  private record Request(
      String method, String target, List<String> headers, byte[] body, boolean upgrade) {

    static Request read(InputStream in) throws IOException {
      String line = line(in);
      if (line == null || line.isEmpty()) {
        return null;
      }
      String[] parts = line.split(" ");
      List<String> headers = new ArrayList<>();
      long length = 0;
      boolean chunked = false;
      boolean upgrade = false;
      for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
        headers.add(h);
        String lower = h.toLowerCase(Locale.ROOT);
        if (lower.startsWith("content-length:")) {
          length = Long.parseLong(h.substring(15).trim());
        } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
          chunked = true;
        } else if (lower.startsWith("upgrade:")) {
          upgrade = true;
        }
      }
      byte[] body;
      if (chunked) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
            size > 0;
            size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
          b.write(in.readNBytes(size));
          line(in);
        }
        line(in);
        body = b.toByteArray();
        headers.removeIf(h -> h.toLowerCase(Locale.ROOT).startsWith("transfer-encoding:"));
        headers.add("Content-Length: " + body.length);
      } else {
        body = in.readNBytes((int) length);
      }
      return new Request(parts[0], parts[1], headers, body, upgrade);
    }

    /** The request as sent upstream; {@code Connection: close} unless it upgrades. */
    byte[] bytes(boolean keepConnection) {
      StringBuilder b = new StringBuilder(method + " " + target + " HTTP/1.1\r\n");
      for (String h : headers) {
        if (!keepConnection && h.toLowerCase(Locale.ROOT).startsWith("connection:")) {
          continue;
        }
        b.append(h).append("\r\n");
      }
      if (!keepConnection) {
        b.append("Connection: close\r\n");
      }
      b.append("\r\n");
      byte[] head = b.toString().getBytes(StandardCharsets.ISO_8859_1);
      byte[] all = new byte[head.length + body.length];
      System.arraycopy(head, 0, all, 0, head.length);
      System.arraycopy(body, 0, all, head.length, body.length);
      return all;
    }

    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) >= 0) {
        if (c == '\n') {
          String s = b.toString(StandardCharsets.ISO_8859_1);
          return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
        }
        b.write(c);
      }
      return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }
  }

  // -------------------------------------------------------------------------------- TLS setup

  /** A context presenting {@code pki/NAME.crt} and trusting {@code pki/ca.crt}. */
  private static SSLContext context(Path pki, String name)
      throws IOException, GeneralSecurityException {
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    Certificate cert;
    Certificate ca;
    try (InputStream c = Files.newInputStream(pki.resolve(name + ".crt"));
        InputStream a = Files.newInputStream(pki.resolve("ca.crt"))) {
      cert = cf.generateCertificate(c);
      ca = cf.generateCertificate(a);
    }
    String pem =
        Files.readString(pki.resolve(name + ".key"))
            .replaceAll("-----[A-Z ]+-----", "")
            .replaceAll("\\s", "");
    PrivateKey key =
        KeyFactory.getInstance("RSA")
            .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
    char[] pass = "proxy".toCharArray();
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry(name, key, pass, new Certificate[] {cert, ca});
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, pass);
    KeyStore ts = KeyStore.getInstance("PKCS12");
    ts.load(null, null);
    ts.setCertificateEntry("ca", ca);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ts);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return ctx;
  }
}
