/**
 * Who holds which GPU: the ledger of allocations and the invariant that no GPU is over-committed.
 */
@NullMarked
package io.sharegpu.core.ledger;

import org.jspecify.annotations.NullMarked;
