/** The AdmissionReview HTTP endpoint, its wire records and metrics. */
@NullMarked
package io.sharegpu.webhook.web;

import org.jspecify.annotations.NullMarked;
