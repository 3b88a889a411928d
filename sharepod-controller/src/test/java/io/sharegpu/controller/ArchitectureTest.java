package io.sharegpu.controller;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The desired pod and next status stay pure; the controller reaches into no other app. */
class ArchitectureTest {

  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.sharegpu.controller");

  @Test
  void modelIsPureNoClientNoSpringNoLoggingNoClock() {
    noClasses()
        .that()
        .resideInAPackage("io.sharegpu.controller.model..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.fabric8.kubernetes.client..",
            "org.springframework..",
            "org.slf4j..",
            "io.micrometer..",
            "java.net..",
            "io.sharegpu.controller.reconcile..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("java.time.Clock")
        .check(CLASSES);
  }

  @Test
  void reconcileDoesNotDependOnSpring() {
    noClasses()
        .that()
        .resideInAPackage("io.sharegpu.controller.reconcile..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.springframework..")
        .check(CLASSES);
  }

  @Test
  void dependsOnNoOtherShareGpuApp() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sharegpu.extender..",
            "io.sharegpu.scheduler..",
            "io.sharegpu.agent..",
            "io.sharegpu.webhook..",
            "io.sharegpu.simulator..",
            "io.sharegpu.core..")
        .check(CLASSES);
  }
}
