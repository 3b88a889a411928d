package io.sharegpu.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** core is pure: JDK and JSpecify only; no frameworks, network, clocks or logging. */
class CoreArchitectureTest {
  private static JavaClasses core;

  @BeforeAll
  static void importCore() {
    core =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.sharegpu.core");
  }

  @Test
  void coreClassesAreImported() {
    org.assertj.core.api.Assertions.assertThat(core.size()).isGreaterThan(20);
  }

  @Test
  void dependsOnNoFrameworkNetworkOrLogging() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.springframework..",
            "io.fabric8..",
            "com.fasterxml..",
            "tools.jackson..",
            "io.sharegpu.api..",
            "java.net..",
            "java.net.http..",
            "java.util.logging..",
            "java.lang.System$Logger",
            "org.slf4j..",
            "org.apache.logging..",
            "org.apache.commons.logging..",
            "ch.qos.logback..")
        .check(core);
  }

  @Test
  void readsNoClock() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .areAssignableTo(Clock.class)
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .callMethod(Instant.class, "now")
        .orShould()
        .callMethod(LocalDateTime.class, "now")
        .orShould()
        .callMethod(System.class, "getLogger", String.class)
        .check(core);
  }
}
