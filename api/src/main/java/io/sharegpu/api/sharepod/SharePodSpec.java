package io.sharegpu.api.sharepod;

import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import org.jspecify.annotations.Nullable;

/** The GPU request and the pod to run with it. */
public class SharePodSpec {

  @Required private @Nullable SharePodGpu gpu;

  @Required
  @ValidationRule(value = "self == oldSelf", message = "template is immutable after creation")
  private @Nullable PodTemplateSpec template;

  public SharePodSpec() {}

  public SharePodSpec(SharePodGpu gpu, PodTemplateSpec template) {
    this.gpu = gpu;
    this.template = template;
  }

  public @Nullable SharePodGpu getGpu() {
    return gpu;
  }

  public void setGpu(@Nullable SharePodGpu gpu) {
    this.gpu = gpu;
  }

  public @Nullable PodTemplateSpec getTemplate() {
    return template;
  }

  public void setTemplate(@Nullable PodTemplateSpec template) {
    this.template = template;
  }
}
