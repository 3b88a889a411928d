package io.sharegpu.webhook.admission.spelling;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Reading a peer's keys from a pod: resources, annotations, labels, and their number formats. */
final class PodKeys {

  static final BigDecimal MIB = BigDecimal.valueOf(1024L * 1024L);

  /** The largest count read (about 1 PiB in MiB): larger values are mistakes. */
  static final long MAX_COUNT = 1L << 30;

  private PodKeys() {}

  static List<Container> containers(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getContainers() == null
        ? List.of()
        : pod.getSpec().getContainers();
  }

  static List<Container> initContainers(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getInitContainers() == null
        ? List.of()
        : pod.getSpec().getInitContainers();
  }

  static Map<String, String> annotations(Pod pod) {
    return pod.getMetadata() == null || pod.getMetadata().getAnnotations() == null
        ? Map.of()
        : pod.getMetadata().getAnnotations();
  }

  static Map<String, String> labels(Pod pod) {
    return pod.getMetadata() == null || pod.getMetadata().getLabels() == null
        ? Map.of()
        : pod.getMetadata().getLabels();
  }

  static String name(Container container) {
    return container.getName() == null ? "" : container.getName();
  }

  /** Returns the container's limit for {@code key}, falling back to its request. */
  static @Nullable Quantity resource(Container container, String key) {
    ResourceRequirements resources = container.getResources();
    if (resources == null) {
      return null;
    }
    if (resources.getLimits() != null && resources.getLimits().containsKey(key)) {
      return resources.getLimits().get(key);
    }
    return resources.getRequests() == null ? null : resources.getRequests().get(key);
  }

  /** Returns {@code container/key} for each of {@code keys} the containers carry. */
  static List<String> resourceKeys(List<Container> containers, Set<String> keys) {
    List<String> found = new ArrayList<>();
    for (Container container : containers) {
      for (String key : keys) {
        if (resource(container, key) != null) {
          found.add(name(container) + "/" + key);
        }
      }
    }
    return found;
  }

  /**
   * Returns a quantity's value as a whole count, as the peers' device plugins read extended
   * resources (the quantity's value, so "3k" is 3000: kube-apiserver canonicalises "3000" to "3k"
   * before the webhook sees it), or null with an error when it is fractional, negative or absurdly
   * large.
   */
  static @Nullable Long count(
      String container, String key, @Nullable Quantity quantity, List<String> errors) {
    if (quantity == null) {
      return null;
    }
    BigDecimal value;
    try {
      value = quantity.getNumericalAmount().stripTrailingZeros();
    } catch (ArithmeticException | IllegalArgumentException e) {
      value = null;
    }
    if (value != null
        && value.signum() >= 0
        && value.scale() <= 0
        && value.compareTo(BigDecimal.valueOf(MAX_COUNT)) <= 0) {
      return value.longValueExact();
    }
    errors.add(
        "container \""
            + container
            + "\": "
            + key
            + " \""
            + quantity
            + "\" must be a whole number from 0 to "
            + MAX_COUNT
            + " (the count the peer's device plugin reads)");
    return null;
  }

  /** Parses a decimal string ("0.5"), or returns null with an error. */
  static @Nullable BigDecimal decimal(String key, String value, List<String> errors) {
    if (value.matches("[0-9]{1,6}(\\.[0-9]{1,9})?")) {
      return new BigDecimal(value);
    }
    errors.add(key + " \"" + value + "\" is not a decimal number such as 0.5");
    return null;
  }

  /** Returns a fraction of a GPU in thousandths, or null with an error if finer than 0.001. */
  static @Nullable Integer milli(String key, BigDecimal fraction, List<String> errors) {
    BigDecimal milli = fraction.movePointRight(3).stripTrailingZeros();
    if (milli.scale() > 0) {
      errors.add(
          key
              + " \""
              + fraction.toPlainString()
              + "\" is finer than ShareGPU's thousandths of a GPU; round it to 3 decimals");
      return null;
    }
    return milli.intValueExact();
  }

  /** Returns bytes as MiB, rounded up (a reservation never smaller than asked). */
  static long bytesToMib(BigInteger bytes) {
    BigInteger[] qr = bytes.divideAndRemainder(MIB.toBigInteger());
    return qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0);
  }
}
