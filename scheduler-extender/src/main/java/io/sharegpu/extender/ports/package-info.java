/**
 * The extender's two ports: the verbs kube-scheduler calls on {@code server.port} (mutual TLS in a
 * real install) and debug, UI and actuator on {@code sharegpu.extender.management-port} (plain
 * HTTP), each path answered on one port only.
 */
@NullMarked
package io.sharegpu.extender.ports;

import org.jspecify.annotations.NullMarked;
