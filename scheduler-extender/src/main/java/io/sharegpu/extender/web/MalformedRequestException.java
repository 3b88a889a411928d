package io.sharegpu.extender.web;

/** A request body that is not the JSON kube-scheduler sends; answered with 400. */
public class MalformedRequestException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message for the caller. */
  public MalformedRequestException(String message) {
    super(message);
  }
}
