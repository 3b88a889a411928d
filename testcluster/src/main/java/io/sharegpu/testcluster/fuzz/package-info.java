/**
 * Seeded generators of hostile request bodies and a runner that checks a property over many of
 * them; used by the apps' fuzz tests. Test support only.
 */
@NullMarked
package io.sharegpu.testcluster.fuzz;

import org.jspecify.annotations.NullMarked;
