package io.sharegpu.api.sharepod;

import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The GPU a SharePod asks for, in GPUs: {@code request: 0.25} (or {@code 250m}) is a quarter of one
 * GPU, {@code 2} is two whole GPUs; {@code limit} caps a share (request &lt;= limit &lt;= 1);
 * {@code memory} is GPU memory such as {@code 10Gi}; {@code models} restricts the GPU models.
 *
 * <p>The API server checks the rules below (Kubernetes 1.29+ CEL quantity library); quantities may
 * arrive as JSON numbers or strings, hence {@code string(...)}.
 */
@ValidationRule(
    value =
        "!has(self.limit) || !isQuantity(string(self.request)) || !isQuantity(string(self.limit))"
            + " || quantity(string(self.request)).compareTo(quantity(string(self.limit))) <= 0",
    message = "gpu.request must not be above gpu.limit")
@ValidationRule(
    value =
        "!has(self.limit) || !isQuantity(string(self.request)) || !isQuantity(string(self.limit))"
            + " || !quantity(string(self.request)).isLessThan(quantity('1'))"
            + " || !quantity(string(self.limit)).isGreaterThan(quantity('1'))",
    message = "gpu.limit of a share (a request below 1) must not be above 1")
public class SharePodGpu {

  @Required
  @ValidationRule(
      value = "isQuantity(string(self)) && quantity(string(self)).isGreaterThan(quantity('0'))",
      message = "gpu.request must be a positive quantity such as 0.25, 250m or 2")
  @ValidationRule(
      value =
          "!isQuantity(string(self)) || quantity(string(self)).isLessThan(quantity('1'))"
              + " || quantity(string(self)).isInteger()",
      message =
          "gpu.request must be below 1 (a share of one GPU) or a whole number (that many GPUs)")
  private @Nullable Quantity request;

  @ValidationRule(
      value = "isQuantity(string(self)) && quantity(string(self)).isGreaterThan(quantity('0'))",
      message = "gpu.limit must be a positive quantity such as 0.5 or 500m")
  private @Nullable Quantity limit;

  @ValidationRule(
      value = "isQuantity(string(self)) && quantity(string(self)).isGreaterThan(quantity('0'))",
      message = "gpu.memory must be a positive quantity such as 10Gi")
  private @Nullable Quantity memory;

  private List<String> models = new ArrayList<>();

  public SharePodGpu() {}

  public SharePodGpu(Quantity request) {
    this.request = request;
  }

  public @Nullable Quantity getRequest() {
    return request;
  }

  public void setRequest(@Nullable Quantity request) {
    this.request = request;
  }

  public @Nullable Quantity getLimit() {
    return limit;
  }

  public void setLimit(@Nullable Quantity limit) {
    this.limit = limit;
  }

  public @Nullable Quantity getMemory() {
    return memory;
  }

  public void setMemory(@Nullable Quantity memory) {
    this.memory = memory;
  }

  public List<String> getModels() {
    return models;
  }

  public void setModels(@Nullable List<String> models) {
    this.models = models == null ? new ArrayList<>() : models;
  }
}
