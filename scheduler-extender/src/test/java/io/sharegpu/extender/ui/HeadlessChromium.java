package io.sharegpu.extender.ui;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium ({@code /usr/bin/chromium}) driven through Debian's chromedriver ({@code
 * /usr/bin/chromedriver}), headless, with a fresh profile and without the background traffic that
 * this sandbox refuses. Selenium Manager is never asked for a driver: both paths are given.
 */
public final class HeadlessChromium {

  /** The browser Debian's package {@code chromium} installs. */
  public static final Path BROWSER = Path.of("/usr/bin/chromium");

  /** The driver Debian's package {@code chromium-driver} installs. */
  public static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  private HeadlessChromium() {}

  /**
   * Skips the calling test when Chromium is not installed here; in CI ({@code CI=true}, where
   * {@code .ci/run} installs it) fails instead, so the page is never left untested there.
   */
  public static void assumeInstalled() {
    boolean present = Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
    if (present) {
      return;
    }
    String missing =
        BROWSER + " or " + DRIVER + " is missing (apt-get install -y chromium chromium-driver)";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail("CI=true and " + missing + "; .ci/run installs them");
    }
    Assumptions.abort("skipped: " + missing);
  }

  /** Starts a headless Chromium with a window of {@code width} x {@code height} CSS pixels. */
  public static ChromeDriver start(int width, int height) {
    assumeInstalled();
    Path profile;
    try {
      profile = Files.createTempDirectory("sharegpu-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.setProperty("webdriver.chrome.driver", DRIVER.toString());
    ChromeOptions options = new ChromeOptions();
    options.setBinary(BROWSER.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--user-data-dir=" + profile,
        "--window-size=" + width + "," + height);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(DRIVER.toString()))
            .usingAnyFreePort()
            .build();
    return new ChromeDriver(service, options);
  }
}
