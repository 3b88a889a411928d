package io.sharegpu.webhook;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class ArchitectureTest {

  private final JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.sharegpu.webhook");

  @Test
  void admissionDecisionsArePure() {
    noClasses()
        .that()
        .resideInAPackage("io.sharegpu.webhook.admission..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.springframework..", "java.net..", "io.fabric8.kubernetes.client..", "org.slf4j..")
        .check(classes);
  }

  @Test
  void webhookUsesOnlyTheApiModuleAndNoOtherApp() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sharegpu.core..",
            "io.sharegpu.extender..",
            "io.sharegpu.controller..",
            "io.sharegpu.agent..",
            "io.sharegpu.testcluster..")
        .check(classes);
  }

  @Test
  void webhookNeedsNoKubernetesClient() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.fabric8.kubernetes.client..")
        .check(classes);
  }
}
