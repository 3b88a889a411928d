package io.sharegpu.extender.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.sun.net.httpserver.HttpServer;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.bind.BindForwarder;
import io.sharegpu.extender.bind.BindLeadership;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.testcluster.Ports;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * {@code /bind} on a replica that is not the bind leader: forwarded unchanged to the leader (a
 * local HTTP stub), the leader's answer returned; no leader, an unreachable leader, or a bind
 * forwarded to a replica that is not the leader either: {@code Error} "no bind leader: ...".
 */
class BindForwardingTest {

  private static final String BODY =
      "{\"PodName\":\"p\",\"PodNamespace\":\"ns\",\"PodUID\":\"u-1\",\"Node\":\"h100\"}";
  private static final String LEADER_ANSWER = "{\"Error\":\"\"}";

  private final List<String> localBinds = new ArrayList<>();
  private final List<String> received = new CopyOnWriteArrayList<>();
  private final List<String> forwardedBy = new CopyOnWriteArrayList<>();
  private HttpServer leader;
  private String leaderUrl;

  @BeforeEach
  void startLeaderStub() throws IOException {
    leader = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    leader.createContext(
        "/bind",
        ex -> {
          received.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          forwardedBy.add(
              String.valueOf(ex.getRequestHeaders().getFirst("X-ShareGPU-Forwarded-By")));
          byte[] answer = LEADER_ANSWER.getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, answer.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(answer);
          }
        });
    leader.start();
    leaderUrl = "http://127.0.0.1:" + leader.getAddress().getPort();
  }

  @AfterEach
  void stopLeaderStub() {
    leader.stop(0);
  }

  private MockMvc replica(boolean isLeader, @Nullable String knownLeader) {
    ExtenderMetrics metrics = ExtenderMetrics.inMemory();
    ExtenderHandler handler =
        Fixtures.view("binpack")
            .handler(
                (ns, name, uid, node) -> {
                  localBinds.add(ns + "/" + name + "@" + node);
                  return BindOutcome.bound(null);
                },
                new PodEvents(null),
                metrics);
    BindLeadership leadership =
        BindLeadership.fixed(isLeader, "http://127.0.0.1:1/self", knownLeader, metrics);
    return MockMvcBuilders.standaloneSetup(new Object())
        .addFilters(
            new ExtenderVerbs(
                handler,
                new WireCodec(),
                metrics,
                leadership,
                new BindForwarder(Duration.ofSeconds(1), Duration.ofSeconds(2))))
        .build();
  }

  private String bind(MockMvc mvc, @Nullable String header) throws Exception {
    var req = post("/bind").contentType(MediaType.APPLICATION_JSON).content(BODY);
    if (header != null) {
      req = req.header(BindForwarder.FORWARDED_HEADER, header);
    }
    return mvc.perform(req)
        .andExpect(status().isOk())
        .andReturn()
        .getResponse()
        .getContentAsString(StandardCharsets.UTF_8);
  }

  @Test
  void aFollowerForwardsTheExactBodyToTheLeaderAndReturnsItsAnswer() throws Exception {
    String answer = bind(replica(false, leaderUrl), null);
    assertThat(answer).isEqualTo(LEADER_ANSWER);
    assertThat(received).containsExactly(BODY);
    assertThat(forwardedBy).containsExactly("http://127.0.0.1:1/self");
    assertThat(localBinds).isEmpty();
  }

  @Test
  void theLeaderBindsItselfAndAcceptsForwardedBinds() throws Exception {
    MockMvc mvc = replica(true, "http://127.0.0.1:1/self");
    assertThat(bind(mvc, null)).contains("\"Error\":\"\"");
    assertThat(bind(mvc, "http://10.0.0.2:8080")).contains("\"Error\":\"\"");
    assertThat(localBinds).containsExactly("ns/p@h100", "ns/p@h100");
    assertThat(received).isEmpty();
  }

  @Test
  void noLeaderIsAnError() throws Exception {
    String answer = bind(replica(false, null), null);
    assertThat(answer).contains("no bind leader: no replica holds the bind Lease");
    assertThat(localBinds).isEmpty();
  }

  @Test
  void anUnreachableLeaderIsAnError() throws Exception {
    String dead = "http://127.0.0.1:" + Ports.free();
    String answer = bind(replica(false, dead), null);
    assertThat(answer).contains("no bind leader: forwarding to " + dead + " failed");
    assertThat(localBinds).isEmpty();
  }

  @Test
  void aForwardedBindIsNeverForwardedAgain() throws Exception {
    String answer = bind(replica(false, leaderUrl), "http://10.0.0.2:8080");
    assertThat(answer).contains("no bind leader: this replica").contains("forwarded here by");
    assertThat(received).isEmpty();
    assertThat(localBinds).isEmpty();
  }

  @Test
  void aReplicaThatStillSeesItselfAsHolderDoesNotForwardToItself() throws Exception {
    String answer = bind(replica(false, "http://127.0.0.1:1/self"), null);
    assertThat(answer).contains("no bind leader: this replica holds the bind Lease");
    assertThat(received).isEmpty();
  }
}
