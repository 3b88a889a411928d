package io.sharegpu.extender.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The answer to a bind call ({@code ExtenderBindingResult}): an empty {@code Error} is success. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ExtenderBindingResult(@JsonProperty("Error") String error) {

  /** The success answer. */
  public static final ExtenderBindingResult OK = new ExtenderBindingResult("");

  /** Returns true when the bind succeeded. */
  public boolean ok() {
    return error.isEmpty();
  }
}
