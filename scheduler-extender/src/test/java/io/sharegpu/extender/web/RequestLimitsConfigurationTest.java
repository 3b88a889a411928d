package io.sharegpu.extender.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/** The body limit filter is registered for every path with the configured size. */
class RequestLimitsConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner().withUserConfiguration(RequestLimitsConfiguration.class);

  @Test
  void registersTheFilterWithTheConfiguredLimit() {
    runner
        .withPropertyValues("sharegpu.extender.requests.max-body-size=1KB")
        .run(
            context -> {
              FilterRegistrationBean<?> bean = context.getBean(FilterRegistrationBean.class);
              assertThat(bean.getUrlPatterns()).containsExactly("/*");
              MockHttpServletResponse r =
                  MockMvcBuilders.standaloneSetup(new Object())
                      .addFilters(bean.getFilter())
                      .build()
                      .perform(post("/filter").content(new byte[1025]))
                      .andReturn()
                      .getResponse();
              assertThat(r.getStatus()).isEqualTo(413);
              assertThat(r.getContentAsString())
                  .isEqualTo("{\"Error\":\"request body is larger than 1024 bytes\"}");
            });
  }

  @Test
  void defaultsToFourMegabytes() {
    runner.run(
        context ->
            assertThat(context.getBean(RequestLimitProperties.class).maxBodyBytes())
                .isEqualTo(4L * 1024 * 1024));
  }
}
