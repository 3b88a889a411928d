package io.sharegpu.extender.web;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A flood of rejected requests logs at most a few lines a second, then says how many it left out.
 */
class RejectionLogTest {

  @Test
  void logsOneLinePerRejectionUpToTheRateAndCountsTheRest() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(RejectionLog.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      Thread.sleep(1100); // a fresh one-second window
      for (int i = 0; i < 1000; i++) {
        RejectionLog.rejected("/filter", 400, "malformed JSON");
      }
      // a burst may straddle two windows: at most two windows' worth of lines
      assertThat(appender.list)
          .hasSizeBetween(RejectionLog.PER_SECOND, 2 * RejectionLog.PER_SECOND);
      // (earlier tests in this JVM may have left a count of lines not logged for the first line)
      assertThat(appender.list.get(0).getFormattedMessage())
          .startsWith("rejected request to /filter: 400 malformed JSON");
      assertThat(appender.list.get(appender.list.size() - 1).getFormattedMessage())
          .isEqualTo("rejected request to /filter: 400 malformed JSON");
      assertThat(appender.list).allMatch(e -> e.getThrowableProxy() == null);
      int logged = appender.list.size();
      Thread.sleep(1100);
      RejectionLog.rejected("/bind", 415, "Content-Type must be application/json");
      assertThat(appender.list.get(logged).getFormattedMessage())
          .startsWith("rejected request to /bind: 415 Content-Type must be application/json (")
          .endsWith(" more rejections not logged)");
    } finally {
      logger.detachAppender(appender);
    }
  }
}
