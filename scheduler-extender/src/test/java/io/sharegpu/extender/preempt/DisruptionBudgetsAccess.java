package io.sharegpu.extender.preempt;

import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Opens {@link DisruptionBudgets#matches} to tests of other packages. */
public final class DisruptionBudgetsAccess {

  private DisruptionBudgetsAccess() {}

  public static boolean matches(@Nullable LabelSelector selector, Map<String, String> labels) {
    return DisruptionBudgets.matches(selector, labels);
  }
}
