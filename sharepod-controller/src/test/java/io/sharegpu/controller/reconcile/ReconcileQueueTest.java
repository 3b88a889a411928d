package io.sharegpu.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReconcileQueueTest {

  private static final ResourceKey A = new ResourceKey("ns", "a");
  private static final ResourceKey B = new ResourceKey("ns", "b");

  private final ReconcileQueue queue =
      new ReconcileQueue(Duration.ofMillis(10), Duration.ofMillis(40));

  @AfterEach
  void shutDown() {
    queue.shutDown();
  }

  @Test
  void queuesAKeyOnceHoweverOftenItIsAdded() throws InterruptedException {
    queue.add(A);
    queue.add(B);
    queue.add(A);

    assertThat(queue.depth()).isEqualTo(2);
    assertThat(queue.take()).contains(A);
    assertThat(queue.take()).contains(B);
    assertThat(queue.depth()).isZero();
  }

  @Test
  void aKeyAddedWhileProcessedIsQueuedAgainWhenDoneNotBefore() throws InterruptedException {
    queue.add(A);
    ResourceKey taken = queue.take().orElseThrow();
    queue.add(A);
    queue.add(A);

    assertThat(queue.depth()).as("not handed to a second worker").isZero();
    queue.done(taken);
    assertThat(queue.depth()).isEqualTo(1);
    assertThat(queue.take()).contains(A);
  }

  @Test
  void backoffDoublesUpToTheCapAndForgetResetsIt() {
    assertThat(queue.addRateLimited(A)).isEqualTo(Duration.ofMillis(10));
    assertThat(queue.addRateLimited(A)).isEqualTo(Duration.ofMillis(20));
    assertThat(queue.addRateLimited(A)).isEqualTo(Duration.ofMillis(40));
    assertThat(queue.addRateLimited(A)).isEqualTo(Duration.ofMillis(40));
    queue.forget(A);
    assertThat(queue.addRateLimited(A)).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void addAfterQueuesLater() throws Exception {
    queue.addAfter(A, Duration.ofMillis(50));
    assertThat(queue.depth()).isZero();

    CompletableFuture<Optional<ResourceKey>> taken =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return queue.take();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(taken.get(5, TimeUnit.SECONDS)).contains(A);
  }

  @Test
  void shutDownWakesWorkersWithNothing() throws Exception {
    CompletableFuture<Optional<ResourceKey>> taken =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return queue.take();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    Thread.sleep(50);
    queue.shutDown();

    assertThat(taken.get(5, TimeUnit.SECONDS)).isEmpty();
  }
}
