package io.sharegpu.testcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on the loopback interface. */
public final class Ports {

  private Ports() {}

  /**
   * Returns a TCP port on 127.0.0.1 that was free a moment ago. Another process may take it before
   * the caller binds it, so callers that start servers should retry on "address in use".
   */
  public static int free() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free TCP port on the loopback interface", e);
    }
  }
}
