package io.sharegpu.extender.web;

import io.sharegpu.extender.bind.BindForwarder;
import io.sharegpu.extender.bind.BindLeadership;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.ServerHttpObservationFilter;

/**
 * Serves the verbs ({@link ExtenderVerbs}) right after the port routing and the body limit (both
 * {@link Ordered#HIGHEST_PRECEDENCE}) and before every other filter, Spring MVC's HTTP observation
 * among them: that one is moved behind the verbs, so it still times the debug, page and actuator
 * requests, while each verb is timed by its own histogram.
 */
@Configuration(proxyBeanMethods = false)
class VerbsConfiguration {

  /** The verbs' place in the filter chain. */
  static final int VERBS_ORDER = Ordered.HIGHEST_PRECEDENCE + 1;

  @Bean
  FilterRegistrationBean<ExtenderVerbs> extenderVerbs(
      ExtenderHandler handler,
      WireCodec codec,
      ExtenderMetrics metrics,
      BindLeadership leadership,
      BindForwarder forwarder) {
    FilterRegistrationBean<ExtenderVerbs> registration =
        new FilterRegistrationBean<>(
            new ExtenderVerbs(handler, codec, metrics, leadership, forwarder));
    registration.setOrder(VERBS_ORDER);
    registration.addUrlPatterns("/filter", "/prioritize", "/preempt", "/bind");
    return registration;
  }

  /** Puts Spring's HTTP observation filter behind the verbs. */
  @Bean
  static BeanPostProcessor observationBehindTheVerbs() {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String name) {
        if (bean instanceof FilterRegistrationBean<?> registration
            && registration.getFilter() instanceof ServerHttpObservationFilter) {
          registration.setOrder(VERBS_ORDER + 1);
        }
        return bean;
      }
    };
  }
}
