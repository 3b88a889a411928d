package io.sharegpu.extender.bind;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The TLS context a follower uses to forward {@code /bind} to the leader's verb port: it presents
 * this replica's own certificate (the verb connector's, signed by the CA the leader trusts for
 * clients) and accepts a leader whose certificate chains to the same CA. The leader is addressed by
 * its pod IP, which the certificate (made for the Service's DNS names) does not name, so the host
 * name is not checked: the chain to the install's CA is what identifies a replica.
 */
public final class PeerTls {

  private PeerTls() {}

  /** An SSL context with {@code keyManagers} and chain-only checks over {@code trustManagers}. */
  public static SSLContext context(KeyManager[] keyManagers, TrustManager[] trustManagers)
      throws GeneralSecurityException {
    X509TrustManager chain = null;
    for (TrustManager tm : trustManagers) {
      if (tm instanceof X509TrustManager x) {
        chain = x;
        break;
      }
    }
    if (chain == null) {
      throw new GeneralSecurityException("the SSL bundle has no X.509 trust manager");
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers, new TrustManager[] {new ChainOnly(chain)}, null);
    return context;
  }

  /** Checks the chain with the delegate; the socket and engine variants skip the host name. */
  private static final class ChainOnly extends X509ExtendedTrustManager {
    private final X509TrustManager delegate;

    ChainOnly(X509TrustManager delegate) {
      this.delegate = delegate;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return delegate.getAcceptedIssuers();
    }
  }
}
