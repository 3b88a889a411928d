package io.sharegpu.webhook;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Import;

/** Lets slice tests in other packages import the package-private {@link WebhookConfiguration}. */
@TestConfiguration
@Import(WebhookConfiguration.class)
public class WebhookTestConfiguration {}
