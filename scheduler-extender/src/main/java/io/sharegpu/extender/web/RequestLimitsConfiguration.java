package io.sharegpu.extender.web;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** Registers the request body limit in front of every endpoint. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RequestLimitProperties.class)
class RequestLimitsConfiguration {

  @Bean
  FilterRegistrationBean<RequestBodyLimitFilter> requestBodyLimitFilter(
      RequestLimitProperties limits) {
    FilterRegistrationBean<RequestBodyLimitFilter> bean =
        new FilterRegistrationBean<>(new RequestBodyLimitFilter(limits.maxBodyBytes()));
    bean.setOrder(Ordered.HIGHEST_PRECEDENCE);
    bean.addUrlPatterns("/*");
    return bean;
  }
}
