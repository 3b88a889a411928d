package io.sharegpu.webhook.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * {@code admission.k8s.io/v1 AdmissionReview}: kube-apiserver sends {@code request}, the webhook
 * answers {@code response} with the same {@code uid}. Only the fields the webhook reads or writes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record AdmissionReview(
    @Nullable String apiVersion,
    @Nullable String kind,
    @Nullable AdmissionRequest request,
    @Nullable AdmissionResponse response) {

  /** The only version kube-apiserver sends and the webhook answers with. */
  public static final String API_VERSION = "admission.k8s.io/v1";

  /** Returns the answer to a request. */
  public static AdmissionReview answer(AdmissionResponse response) {
    return new AdmissionReview(API_VERSION, "AdmissionReview", null, response);
  }

  /** The object under review. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record AdmissionRequest(
      String uid,
      @Nullable GroupVersionKind kind,
      @Nullable String namespace,
      @Nullable String name,
      @Nullable String operation,
      @Nullable JsonNode object,
      @Nullable Boolean dryRun) {}

  /** Group, version and kind of the object. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record GroupVersionKind(
      @Nullable String group, @Nullable String version, @Nullable String kind) {}

  /**
   * The verdict. {@code patch} is the base64 of a JSON Patch array when {@code patchType} is {@code
   * JSONPatch}.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record AdmissionResponse(
      String uid,
      boolean allowed,
      @Nullable Status status,
      @Nullable String patchType,
      @Nullable String patch) {

    /** Returns an allowing response without a patch. */
    public static AdmissionResponse allow(String uid) {
      return new AdmissionResponse(uid, true, null, null, null);
    }

    /** Returns an allowing response with a base64-encoded JSON Patch. */
    public static AdmissionResponse patch(String uid, String base64Patch) {
      return new AdmissionResponse(uid, true, null, "JSONPatch", base64Patch);
    }

    /** Returns a denying response; kube-apiserver shows {@code message} to the user. */
    public static AdmissionResponse deny(String uid, int code, String message) {
      return new AdmissionResponse(uid, false, new Status(code, message), null, null);
    }
  }

  /** A {@code metav1.Status} with the HTTP code and message the user sees. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Status(int code, String message) {}
}
