package dev.compactor.server.inspect;

import dev.compactor.testkit.corpus.SharedCorpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium driven by Selenium, with Debian's {@code chromium} and {@code chromium-driver}
 * given explicitly (so Selenium Manager never looks for or downloads a browser or driver). Absent
 * binaries skip the test on a user's machine and fail it under {@code CI=true}.
 */
final class Browser implements AutoCloseable {
  static final Path CHROMIUM =
      Path.of(System.getProperty("compactor.chromium", "/usr/bin/chromium"));
  static final Path DRIVER =
      Path.of(System.getProperty("compactor.chromedriver", "/usr/bin/chromedriver"));

  final ChromeDriver driver;

  private Browser(ChromeDriver driver) {
    this.driver = driver;
  }

  static Browser start(Path profile) {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER);
    String what =
        "browser tests need "
            + CHROMIUM
            + " and "
            + DRIVER
            + " (apt-get install chromium chromium-driver)";
    if (!present && SharedCorpus.inCi()) {
      throw new AssertionError(what + "; CI=true, so their absence is a failure");
    }
    Assumptions.assumeTrue(present, what + ": skipped");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--user-data-dir=" + profile.toAbsolutePath(),
        "--window-size=1400,1600");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(DRIVER.toFile())
            .usingAnyFreePort()
            .build();
    ChromeDriver d = new ChromeDriver(service, options);
    d.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
    return new Browser(d);
  }

  /**
   * Saves a screenshot as {@code NAME.png} in the directory {@code -Dcompactor.screenshots} names.
   */
  void screenshot(String name) throws IOException {
    String dir = System.getProperty("compactor.screenshots");
    if (dir == null || dir.isBlank()) {
      return;
    }
    byte[] png = driver.getScreenshotAs(OutputType.BYTES);
    Path out = Path.of(dir).resolve(name + ".png");
    Files.createDirectories(out.getParent());
    Files.write(out, png);
  }

  @Override
  public void close() {
    driver.quit();
  }

  /**
   * Closes what a browser test started, in the order given, skipping what never started (null):
   * typically the browser first, then the server, then its stores.
   */
  static void closeAll(AutoCloseable... started) throws Exception {
    for (AutoCloseable c : started) {
      if (c != null) {
        c.close();
      }
    }
  }
}
