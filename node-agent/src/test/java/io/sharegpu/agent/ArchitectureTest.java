package io.sharegpu.agent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class ArchitectureTest {

  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.sharegpu.agent");

  @Test
  void gpuDiscoveryKnowsNothingOfKubernetes() {
    noClasses()
        .that()
        .resideInAPackage("io.sharegpu.agent.gpu..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8..", "io.sharegpu.agent.kube..", "io.micrometer..")
        .check(classes);
  }

  @Test
  void agentDoesNotReachIntoOtherApps() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sharegpu.extender..",
            "io.sharegpu.controller..",
            "io.sharegpu.webhook..",
            "io.sharegpu.simulator..",
            "org.springframework..")
        .check(classes);
  }
}
