package io.sharegpu.extender.ports;

import io.sharegpu.extender.ExtenderProperties;
import org.apache.catalina.connector.Connector;
import org.springframework.boot.tomcat.TomcatWebServerFactory;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * A second Tomcat connector on {@code sharegpu.extender.management-port} (plain HTTP, default 8081)
 * beside the verb connector on {@code server.port} (HTTPS with client certificates when {@code
 * server.ssl.*} is set), and the {@link PortRouting} filter that keeps each path on its port.
 *
 * <p>One application context and one DispatcherServlet serve both; actuator stays in that context
 * (setting Boot's {@code management.server.port} would move only actuator, into a child context).
 */
@Configuration(proxyBeanMethods = false)
public class ManagementPortConfiguration {

  /** The management connector, bound when the web server starts. */
  @Bean
  ManagementConnector managementConnector(ExtenderProperties props, Environment env) {
    requireDistinct(env.getProperty("server.port", Integer.class, 8080), props.managementPort());
    return new ManagementConnector(props.managementPort());
  }

  /**
   * Refuses one port for both: the verbs and the management paths would then share a connector and
   * every path would be routed as one of them. 0 (a free port each) is fine.
   */
  static void requireDistinct(int serverPort, int managementPort) {
    if (managementPort != 0 && managementPort == serverPort) {
      throw new IllegalStateException(
          "sharegpu.extender.management-port and server.port are both "
              + serverPort
              + "; the verbs and /debug, /ui, /actuator need a port each");
    }
  }

  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> managementConnectorCustomizer(
      ManagementConnector connector) {
    return factory -> factory.addAdditionalConnectors(connector.connector());
  }

  /** Runs before every other filter, so a path on the wrong port reaches nothing. */
  @Bean
  FilterRegistrationBean<PortRouting> portRouting(ManagementConnector connector) {
    FilterRegistrationBean<PortRouting> registration =
        new FilterRegistrationBean<>(new PortRouting(connector::isLocalPort));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    registration.addUrlPatterns("/*");
    return registration;
  }

  /** The Tomcat connector of the management port. */
  public static final class ManagementConnector {
    private final Connector connector;

    ManagementConnector(int port) {
      this.connector = new Connector(TomcatWebServerFactory.DEFAULT_PROTOCOL);
      connector.setPort(port);
    }

    Connector connector() {
      return connector;
    }

    /** The port it listens on (the bound one when configured as 0); -1 before the server starts. */
    public int port() {
      return connector.getLocalPort();
    }

    boolean isLocalPort(int port) {
      return port == connector.getLocalPort();
    }
  }
}
