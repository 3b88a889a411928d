package io.sharegpu.kubectl.command;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.kubectl.KubeErrors;
import io.sharegpu.kubectl.render.ExplainView;
import io.sharegpu.kubectl.report.Explanation;
import io.sharegpu.kubectl.report.PodReport;
import io.sharegpu.kubectl.report.Reports;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code explain POD}: asks the scheduler extender, through the API server's service proxy, why the
 * pod fits or not on each node; falls back to the pod's FailedScheduling Events when the user may
 * not use the proxy or no extender is found.
 */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
      "Explain why a pod is pending, per node, and what preemption would do.",
      "Per node the reason (the words of its FailedScheduling Events), the per-GPU reasons and",
      "where it would fit. Asks the scheduler",
      "extender through the API server's service proxy (needs get on services/proxy for the",
      "extender's Service); falls back to the pod's Events."
    })
public final class ExplainCommand extends KubeCommand {

  /** The labels the chart puts on the extender's Service. */
  static final Map<String, String> EXTENDER_LABELS =
      Map.of("app.kubernetes.io/component", "extender", "app.kubernetes.io/part-of", "sharegpu");

  private static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  @Parameters(index = "0", paramLabel = "POD", description = "The pod.")
  String pod = "";

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "The pod's namespace (default: the context's).")
  @Nullable String namespace;

  @Option(
      names = "--extender-namespace",
      paramLabel = "NS",
      description = "Namespace of the extender's Service (default: found by its labels).")
  @Nullable String extenderNamespace;

  @Option(
      names = "--extender-service",
      paramLabel = "NAME",
      description = "Name of the extender's Service (default: found by its labels).")
  @Nullable String extenderService;

  @Option(
      names = "--extender-port",
      paramLabel = "PORT",
      defaultValue = "management",
      description = "Port name (or number) of the extender's Service (default: ${DEFAULT-VALUE}).")
  String extenderPort = "management";

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description =
          "wide: one row per node (default: nodes with the same answer share a row);"
              + " json: the extender's answer as it is.")
  @Nullable String output;

  @Override
  int run(KubernetesClient client) {
    if (output != null && !output.equals("wide") && !output.equals("json")) {
      err().println("error: --output must be wide or json, got " + output);
      return 2;
    }
    String ns = namespace != null ? namespace : orDefault(client.getNamespace());
    Pod p = client.pods().inNamespace(ns).withName(pod).get();
    if (p == null) {
      err().println("error: pod " + ns + "/" + pod + " not found");
      return 1;
    }
    List<PodReport.ContainerRow> assigned = Reports.podRows(p);
    String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
    if (node != null && !node.isEmpty()) {
      out()
          .println(
              "Pod "
                  + ns
                  + "/"
                  + pod
                  + " is not pending: bound to node "
                  + node
                  + (assigned.isEmpty()
                      ? ""
                      : ", GPUs "
                          + String.join(
                              ",",
                              assigned.stream()
                                  .flatMap(c -> c.gpuUuids().stream())
                                  .distinct()
                                  .toList())));
    }
    String problem;
    Service service = null;
    try {
      service = findExtender(client);
      problem =
          service == null
              ? "no scheduler extender Service found (looked for the labels "
                  + labels()
                  + " in all namespaces; pass --extender-namespace and --extender-service)"
              : null;
    } catch (KubernetesClientException e) {
      problem =
          e.getCode() == 403
              ? "you may not list services in all namespaces to find the scheduler extender"
                  + " (needs list on services); pass --extender-namespace and --extender-service"
              : "could not look for the scheduler extender: " + KubeErrors.describe(e);
    }
    if (service != null) {
      String sns = service.getMetadata().getNamespace();
      String sname = service.getMetadata().getName();
      String path =
          "/api/v1/namespaces/"
              + sns
              + "/services/"
              + sname
              + ":"
              + extenderPort
              + "/proxy/debug/pods/"
              + encode(ns)
              + "/"
              + encode(pod)
              + "/explain";
      ApiGet.Answer answer = ApiGet.get(client, path, kube.requestTimeoutSeconds());
      if (answer.ok()) {
        if ("json".equals(output)) {
          out().println(answer.body());
          return 0;
        }
        Explanation e = JSON.readValue(answer.body(), Explanation.class);
        out().print(ExplainView.render(e, style(), "wide".equals(output)));
        return 0;
      }
      problem =
          answer.code() == 403
              ? "you may not reach the scheduler extender through the API server: needs get on"
                  + " services/proxy for service "
                  + sns
                  + "/"
                  + sname
                  + " (check: kubectl auth can-i get services/proxy -n "
                  + sns
                  + ")"
              : "the scheduler extender "
                  + sns
                  + "/"
                  + sname
                  + " did not answer"
                  + (answer.code() > 0 ? " (HTTP " + answer.code() + ")" : "")
                  + ": "
                  + firstLine(answer.body());
    }
    err().println("warning: " + problem);
    err().println("Falling back to the pod's FailedScheduling Events.");
    err().flush();
    return events(client, ns);
  }

  private @Nullable Service findExtender(KubernetesClient client) {
    if (extenderService != null) {
      String sns = extenderNamespace != null ? extenderNamespace : orDefault(client.getNamespace());
      return client.services().inNamespace(sns).withName(extenderService).get();
    }
    List<Service> found =
        extenderNamespace != null
            ? client
                .services()
                .inNamespace(extenderNamespace)
                .withLabels(EXTENDER_LABELS)
                .list()
                .getItems()
            : client.services().inAnyNamespace().withLabels(EXTENDER_LABELS).list().getItems();
    return found.stream()
        .min(
            Comparator.comparing((Service s) -> s.getMetadata().getNamespace())
                .thenComparing(s -> s.getMetadata().getName()))
        .orElse(null);
  }

  private int events(KubernetesClient client, String ns) {
    List<Event> events;
    try {
      events =
          client
              .v1()
              .events()
              .inNamespace(ns)
              .withField("involvedObject.name", pod)
              .list()
              .getItems();
    } catch (KubernetesClientException e) {
      err().println("error: cannot read the pod's Events: " + KubeErrors.describe(e));
      return 1;
    }
    List<Event> failed =
        events.stream()
            .filter(e -> "FailedScheduling".equals(e.getReason()))
            .sorted(Comparator.comparing(ExplainCommand::eventTime))
            .toList();
    if (failed.isEmpty()) {
      out().println("No FailedScheduling Events for pod " + ns + "/" + pod + ".");
      return 0;
    }
    out().println("FailedScheduling Events of pod " + ns + "/" + pod + " (latest last):");
    for (Event e : failed) {
      int count = e.getCount() == null ? 1 : e.getCount();
      out()
          .println(
              "  "
                  + eventTime(e)
                  + (count > 1 ? " (x" + count + ")" : "")
                  + "  "
                  + (e.getMessage() == null ? "" : e.getMessage().strip()));
    }
    return 0;
  }

  private static String eventTime(Event e) {
    if (e.getLastTimestamp() != null) {
      return e.getLastTimestamp();
    }
    if (e.getEventTime() != null && e.getEventTime().getTime() != null) {
      return e.getEventTime().getTime();
    }
    return e.getMetadata().getCreationTimestamp() == null
        ? ""
        : e.getMetadata().getCreationTimestamp();
  }

  private static String labels() {
    return EXTENDER_LABELS.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey() + "=" + e.getValue())
        .reduce((a, b) -> a + "," + b)
        .orElse("");
  }

  private static String orDefault(@Nullable String ns) {
    return ns == null ? "default" : ns;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String firstLine(String s) {
    String t = s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl);
  }
}
