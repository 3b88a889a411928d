/** kube-scheduler extender protocol: wire records, codec and the HTTP controller. */
@NullMarked
package io.sharegpu.extender.web;

import org.jspecify.annotations.NullMarked;
