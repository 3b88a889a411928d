package io.sharegpu.extender.bind;

import static io.sharegpu.extender.Fixtures.addNode;
import static io.sharegpu.extender.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.mapping.PodDemands;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.scheduling.BindTicket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A bind throws an unchecked exception at each of its steps in turn, one run per step: the cache
 * read, each API read and write, each leadership check and the placement decision inside the
 * ledger's lock. After every run the ledger is what it was before the bind (no reservation leaked,
 * nothing over-committed), or holds the pod BOUND when the Binding was created; a fault once the
 * Binding may have been sent holds the GPUs as a reservation until its TTL passes. The pod can then
 * be bound again (no bind left in flight).
 */
class BindStepFaultTest {

  /** What the API server answers to the first Binding of a scenario. */
  enum Scenario {
    /** The Binding is created. */
    CREATED,
    /** 409 (the pod changed), then the fresh pod is bound. */
    CONFLICT_THEN_CREATED,
    /** 500, and the pod is read back unbound: failure. */
    SERVER_ERROR_UNBOUND,
    /** 500, but the pod is read back bound to the node: success. */
    SERVER_ERROR_BOUND_ANYWAY
  }

  /** Counts the steps of a bind and throws at one of them. */
  static final class Faults {
    private final int failAt;
    private int steps;
    final List<String> names = new ArrayList<>();
    boolean injected;

    Faults(int failAt) {
      this.failAt = failAt;
    }

    void step(String name) {
      steps++;
      names.add(name);
      if (steps == failAt) {
        injected = true;
        throw new IllegalStateException("injected fault at step " + steps + ": " + name);
      }
    }
  }

  /** The placement policy with a step inside the ledger's lock (scoring a candidate grant). */
  static final class FaultyPolicy implements PlacementPolicy {
    private final PlacementPolicy inner = PlacementPolicies.byName("binpack", 1);
    @Nullable Faults faults;

    @Override
    public String name() {
      return "faulty-binpack";
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      if (faults != null) {
        faults.step("placement scores a grant");
      }
      return inner.score(view, pod, grant);
    }
  }

  /** A scripted API server for one pod, every call a step. */
  static final class ScriptedApi implements PodBinder.PodApi {
    private final Scenario scenario;
    private final Faults faults;
    private Pod pod;
    private int bindings;

    ScriptedApi(Scenario scenario, Faults faults, Pod pod) {
      this.scenario = scenario;
      this.faults = faults;
      this.pod = pod;
    }

    @Override
    public @Nullable Pod read(String namespace, String name) {
      faults.step("API read of the pod");
      return pod;
    }

    @Override
    public void createBinding(Binding binding) {
      faults.step("API create of the Binding");
      bindings++;
      boolean first = bindings == 1;
      if (first && scenario == Scenario.CONFLICT_THEN_CREATED) {
        pod = new PodBuilder(pod).editMetadata().withResourceVersion("8").endMetadata().build();
        throw new KubernetesClientException(
            new StatusBuilder().withCode(409).withMessage("the object has been modified").build());
      }
      if (first
          && (scenario == Scenario.SERVER_ERROR_UNBOUND
              || scenario == Scenario.SERVER_ERROR_BOUND_ANYWAY)) {
        if (scenario == Scenario.SERVER_ERROR_BOUND_ANYWAY) {
          pod = bound(pod, binding);
        }
        throw new KubernetesClientException(
            new StatusBuilder().withCode(500).withMessage("etcd is slow").build());
      }
      pod = bound(pod, binding);
    }

    private static Pod bound(Pod pod, Binding binding) {
      return new PodBuilder(pod)
          .editMetadata()
          .addToAnnotations(binding.getMetadata().getAnnotations())
          .endMetadata()
          .editSpec()
          .withNodeName(binding.getTarget().getName())
          .endSpec()
          .build();
    }
  }

  static Stream<Arguments> scenarios() {
    return Stream.of(Scenario.values()).map(Arguments::of);
  }

  private static Pod pending() {
    return Fixtures.share("ns", "a", "uid-a", 500, 0).resourceVersion("7").build();
  }

  private static Pod boundElsewhere() {
    Pod p = pod("ns", "x", "uid-x", 1000, 0);
    p.getMetadata()
        .setAnnotations(
            Map.of(
                io.sharegpu.api.ShareGpuAnnotations.ASSIGNED_GPUS,
                Fixtures.uuid("t4", 0),
                io.sharegpu.api.ShareGpuAnnotations.forContainer(
                    io.sharegpu.api.ShareGpuAnnotations.ASSIGNED_GPUS, "main"),
                Fixtures.uuid("t4", 0)));
    p.getSpec().setNodeName("t4");
    return p;
  }

  private static List<Allocation> allocations(ClusterFixture c) {
    return c.withLedger(l -> List.copyOf(l.allocations()));
  }

  private static Optional<Allocation> held(ClusterFixture c) {
    return c.withLedger(l -> l.allocation("uid-a"));
  }

  @ParameterizedTest
  @MethodSource("scenarios")
  void anExceptionAtAnyStepOfABindLeavesTheLedgerAsItWas(Scenario scenario) {
    int runsWithFault = 0;
    for (int failAt = 1; ; failAt++) {
      Faults faults = new Faults(failAt);
      FaultyPolicy policy = new FaultyPolicy();
      try (ClusterFixture c = new ClusterFixture(null, policy, Duration.ofSeconds(30))) {
        c.markReady();
        addNode(c, "t4", "Tesla T4", 2, 15360);
        c.onPod(boundElsewhere());
        List<Allocation> before = allocations(c);
        assertThat(before).hasSize(1);
        PodBinder binder =
            new PodBinder(
                new ScriptedApi(scenario, faults, pending()),
                (ns, name) -> {
                  faults.step("pod cache read");
                  return Optional.empty();
                },
                c.state(),
                new PodEvents(null),
                ExtenderMetrics.inMemory(),
                () -> {
                  faults.step("bind leadership check");
                  return true;
                });
        policy.faults = faults;

        BindOutcome outcome = null;
        RuntimeException thrown = null;
        try {
          outcome = binder.bind("ns", "a", "uid-a", "t4");
        } catch (RuntimeException e) {
          thrown = e;
        }
        policy.faults = null;
        if (!faults.injected) {
          // every step passed: the scenario's own outcome
          boolean expectBound = scenario != Scenario.SERVER_ERROR_UNBOUND;
          assertThat(outcome).isNotNull();
          assertThat(outcome.ok()).as(outcome.message()).isEqualTo(expectBound);
          assertThat(runsWithFault)
              .as("steps of a %s bind: %s", scenario, faults.names)
              .isEqualTo(failAt - 1)
              .isGreaterThanOrEqualTo(5);
          break;
        }
        runsWithFault++;
        String step = faults.names.get(faults.names.size() - 1);
        boolean ok = outcome != null && outcome.ok();
        if (thrown == null && !ok) {
          assertThat(outcome.message()).as("step %s", step).isNotBlank();
        }
        Fixtures.assertInvariant(c);
        if (ok) {
          assertThat(allocations(c)).as("step %s", step).hasSize(2).containsAll(before);
          assertThat(held(c))
              .map(Allocation::state)
              .as("step %s", step)
              .contains(AllocationState.BOUND);
        } else {
          if (thrown != null && faults.names.contains("API create of the Binding")) {
            // the Binding may have reached the API server: the GPUs stay held as a reservation
            // (nobody else may take them) until the informer or the reservation TTL settles it
            assertThat(held(c))
                .map(Allocation::state)
                .as("held after a fault at: %s", step)
                .contains(AllocationState.RESERVED);
            c.passReservationTtl();
          }
          assertThat(allocations(c)).as("no leak after a fault at: %s", step).isEqualTo(before);
          // no bind is left in flight: the pod can be bound again
          PodDemand demand = ((PodDemands.Demand) PodDemands.of(pending())).demand();
          try (BindTicket again = c.state().beginBind(demand, "t4")) {
            assertThat(again.refusal()).as("step %s", step).isEmpty();
            assertThat(again.allocation()).as("step %s", step).isPresent();
          }
          assertThat(allocations(c)).isEqualTo(before);
        }
      }
    }
    assertThat(runsWithFault).isPositive();
  }
}
