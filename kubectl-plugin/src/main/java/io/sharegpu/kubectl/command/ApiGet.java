package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A GET of a raw API server path (a service or pod proxy) with the client's credentials and
 * impersonation, answering the status code instead of throwing, so a 403 can be explained.
 */
final class ApiGet {

  /** The status code (0 when the request failed before an answer) and the body or the error. */
  record Answer(int code, String body) {
    boolean ok() {
      return code >= 200 && code < 300;
    }
  }

  private ApiGet() {}

  static Answer get(KubernetesClient client, String path, int timeoutSeconds) {
    String base = client.getMasterUrl().toString();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    HttpClient http = client.getHttpClient();
    HttpRequest request = http.newHttpRequestBuilder().uri(base + path).build();
    try {
      HttpResponse<String> response =
          http.sendAsync(request, String.class).get(timeoutSeconds, TimeUnit.SECONDS);
      String body = response.body();
      return new Answer(response.code(), body == null ? "" : body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(0, "interrupted");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return new Answer(0, String.valueOf(cause.getMessage()));
    } catch (TimeoutException e) {
      return new Answer(0, "no answer within " + timeoutSeconds + " s");
    }
  }
}
