package io.sharegpu.testcluster;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** A child-process fixture for {@link JavaAppTest}: answers GET / with $GREETING and -Dsuffix. */
final class GreetingServer {

  private GreetingServer() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 1 && args[1].equals("fail")) {
      System.out.println("boom: refusing to start");
      System.exit(3);
    }
    HttpServer server =
        HttpServer.create(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0])), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body =
              (System.getenv("GREETING") + " " + System.getProperty("suffix"))
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    System.out.println("listening on " + args[0]);
  }
}
