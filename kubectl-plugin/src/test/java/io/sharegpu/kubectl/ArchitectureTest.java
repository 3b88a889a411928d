package io.sharegpu.kubectl;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class ArchitectureTest {

  private final com.tngtech.archunit.core.domain.JavaClasses classes =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.sharegpu.kubectl");

  @Test
  void thePluginTalksToTheApiServerOnlyAndUsesNoOtherModuleThanApi() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sharegpu.core..",
            "io.sharegpu.extender..",
            "io.sharegpu.controller..",
            "io.sharegpu.agent..",
            "io.sharegpu.webhook..",
            "org.springframework..")
        .check(classes);
  }

  @Test
  void reportsAndRenderingDoNoIo() {
    noClasses()
        .that()
        .resideInAnyPackage("io.sharegpu.kubectl.report..", "io.sharegpu.kubectl.render..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8.kubernetes.client.dsl..", "java.net..", "picocli..")
        .check(classes);
  }
}
