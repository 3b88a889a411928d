/**
 * Leader election: which replica of the controller reconciles. Replicas compete for a Lease with
 * fabric8's elector; the holder runs the workers, the others keep their caches warm.
 */
@NullMarked
package io.sharegpu.controller.leader;

import org.jspecify.annotations.NullMarked;
