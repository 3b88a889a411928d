package io.sharegpu.api;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.fabric8.kubernetes.client.CustomResource;
import org.junit.jupiter.api.Test;

/** api depends on the fabric8 model only: no client, no core, no Spring, no network. */
class ArchitectureTest {

  private static final JavaClasses API =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.sharegpu.api");

  @Test
  void usesNoClientOtherThanTheCustomResourceBaseClass() {
    noClasses()
        .should()
        .dependOnClassesThat(
            DescribedPredicate.describe(
                "are in the fabric8 client (other than CustomResource)",
                c ->
                    c.getPackageName().startsWith("io.fabric8.kubernetes.client")
                        && !c.isEquivalentTo(CustomResource.class)))
        .check(API);
  }

  @Test
  void dependsOnNeitherCoreNorSpringNorNetwork() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.sharegpu.core..", "org.springframework..", "java.net..")
        .check(API);
  }
}
