package io.sharegpu.extender;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.scheduling.Nominations;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The extender's rooms: the web layer decides through the scheduling state only; the binder is the
 * only writer of Bindings; the read-only views (debug, ui, metrics) change nothing; the scheduling
 * state and the mapper know neither the API client nor Spring; one mapper reads pods' requests.
 */
class ArchitectureTest {

  private static final String WEB = "io.sharegpu.extender.web..";
  private static final String READ_ONLY_VIEWS =
      "io.sharegpu.extender.debug..|io.sharegpu.extender.ui..|io.sharegpu.extender.metrics..";

  /** fabric8's verbs that change objects on the API server. */
  private static final Set<String> API_WRITES =
      Set.of(
          "create",
          "createOr",
          "createOrReplace",
          "replace",
          "replaceStatus",
          "update",
          "updateStatus",
          "patch",
          "patchStatus",
          "edit",
          "editStatus",
          "delete",
          "serverSideApply",
          "evict");

  /** The calls that change the scheduling state, the ledger or the informer feed. */
  private static final Set<String> STATE_WRITES =
      Set.of(
          // SchedulingState
          "filter",
          "prioritize",
          "beginBind",
          "reserve",
          "expireReservations",
          "putNode",
          "removeNode",
          "holdAssigned",
          "podGone",
          "roomOpened",
          "markReady",
          "notReadyBecause",
          "close",
          // Ledger
          "commit",
          "release",
          "setState",
          // Nominations
          "nominate",
          "forget",
          // ClusterFeed
          "start",
          "onNode",
          "onNodeDelete",
          "onGpuNode",
          "onGpuNodeDelete",
          "onPod",
          "onPodDelete");

  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.sharegpu.extender");

  private static DescribedPredicate<JavaMethodCall> apiWrite() {
    return DescribedPredicate.describe(
        "a write to the API server",
        call ->
            call.getTargetOwner().getPackageName().startsWith("io.fabric8.kubernetes.client")
                && API_WRITES.contains(call.getName()));
  }

  private static DescribedPredicate<JavaMethodCall> stateWrite() {
    return DescribedPredicate.describe(
        "a change of the scheduling state, the ledger or the informer feed",
        call ->
            (call.getTargetOwner().isEquivalentTo(SchedulingState.class)
                    || call.getTargetOwner().isEquivalentTo(Ledger.class)
                    || call.getTargetOwner().isEquivalentTo(Nominations.class)
                    || call.getTargetOwner().isEquivalentTo(ClusterFeed.class))
                && STATE_WRITES.contains(call.getName()));
  }

  @Test
  void theWebLayerDecidesThroughTheSchedulingStateOnly() {
    noClasses()
        .that()
        .resideInAPackage(WEB)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.sharegpu.extender.cluster..", "io.sharegpu.core.ledger..")
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(Placement.class)
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(KubernetesClient.class)
        .check(classes);
  }

  @Test
  void onlyTheBinderCreatesBindings() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.sharegpu.extender.bind..")
        .should()
        .callMethodWhere(
            DescribedPredicate.describe(
                "KubernetesClient.bindings()",
                (JavaMethodCall call) ->
                    call.getName().equals("bindings")
                        && call.getTargetOwner().getPackageName().startsWith("io.fabric8")))
        .check(classes);
  }

  @Test
  void theVerbsTheStateAndTheFeedWriteNothingToTheApiServer() {
    noClasses()
        .that()
        .resideInAnyPackage(
            WEB,
            "io.sharegpu.extender.scheduling..",
            "io.sharegpu.extender.cluster..",
            "io.sharegpu.extender.mapping..",
            "io.sharegpu.extender.preempt..")
        .should()
        .callMethodWhere(apiWrite())
        .check(classes);
  }

  @Test
  void debugUiAndMetricsOnlyRead() {
    for (String pkg : READ_ONLY_VIEWS.split("\\|")) {
      noClasses()
          .that()
          .resideInAPackage(pkg)
          .should()
          .callMethodWhere(apiWrite())
          .orShould()
          .callMethodWhere(stateWrite())
          .check(classes);
    }
  }

  @Test
  void theSchedulingStateAndTheMapperKnowNoClientNoSpringAndNoProtocol() {
    noClasses()
        .that()
        .resideInAnyPackage("io.sharegpu.extender.scheduling..", "io.sharegpu.extender.mapping..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.fabric8.kubernetes.client..",
            "org.springframework..",
            "io.sharegpu.extender.web..",
            "io.sharegpu.extender.bind..",
            "io.sharegpu.extender.cluster..")
        .check(classes);
  }

  @Test
  void onlyTheMapperParsesPodRequests() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.sharegpu.extender.mapping..")
        .should()
        .callMethod(PodGpuRequestParser.class, "parse", io.fabric8.kubernetes.api.model.Pod.class)
        .check(classes);
  }
}
