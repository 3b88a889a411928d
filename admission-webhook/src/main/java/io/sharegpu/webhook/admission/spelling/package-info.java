/**
 * Translation of the peers' request spellings (HAMi, KubeShare 1.x and 2.0, gpu-manager, gpushare)
 * into ShareGPU's resources and annotations: one small pure class per peer behind {@link
 * io.sharegpu.webhook.admission.spelling.Spelling}, listed in {@link
 * io.sharegpu.webhook.admission.spelling.Spellings}. docs/migration.md is the user's table.
 */
@NullMarked
package io.sharegpu.webhook.admission.spelling;

import org.jspecify.annotations.NullMarked;
