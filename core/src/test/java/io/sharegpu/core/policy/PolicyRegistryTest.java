package io.sharegpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharegpu.core.placement.BinPackPolicy;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.placement.SpreadPolicy;
import org.junit.jupiter.api.Test;

class PolicyRegistryTest {

  @Test
  void productListsShareGpuBinPackAndSpreadOnly() {
    assertThat(PolicyRegistry.PRODUCT.names()).containsExactly("sharegpu", "binpack", "spread");
  }

  @Test
  void baselinesAreApartFromTheProduct() {
    assertThat(PolicyRegistry.BASELINES.names())
        .containsExactly(
            "random", "dotprod", "clustering", "packing", "bestfit", "fgd", "fgd-exact")
        .doesNotContainAnyElementsOf(PolicyRegistry.PRODUCT.names());
    assertThat(PolicyRegistry.ALL.names())
        .containsAll(PolicyRegistry.PRODUCT.names())
        .containsAll(PolicyRegistry.BASELINES.names());
  }

  @Test
  void everyNameMakesAFreshPolicyOfThatName() {
    for (String name : PolicyRegistry.ALL.names()) {
      PlacementPolicy a = PolicyRegistry.ALL.create(name, 7);
      PlacementPolicy b = PolicyRegistry.ALL.create(name, 7);
      if (!name.equals("fgd-exact")) {
        assertThat(a.name()).as(name).isEqualTo(name);
      }
      if (!(a instanceof Record)) {
        assertThat(a).as("%s: a fresh policy each time", name).isNotSameAs(b);
      }
    }
    assertThat(PolicyRegistry.ALL.create("FGD", 1)).isInstanceOf(FgdPolicy.class);
  }

  @Test
  void namesMatchWhateverTheCaseAndBlanks() {
    assertThat(PolicyRegistry.PRODUCT.create(" BinPack ", 0)).isInstanceOf(BinPackPolicy.class);
    assertThat(PolicyRegistry.PRODUCT.contains("SPREAD")).isTrue();
  }

  @Test
  void refusesAMisspeltNameListingTheValidOnes() {
    assertThatThrownBy(() -> PolicyRegistry.PRODUCT.create("binpak", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown placement policy 'binpak'; valid: sharegpu, binpack, spread");
  }

  @Test
  void productRefusesTheBaselines() {
    assertThatThrownBy(() -> PolicyRegistry.PRODUCT.create("fgd", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("valid: sharegpu, binpack, spread");
  }

  @Test
  void withAddsPoliciesWithoutChangingTheOriginal() {
    PolicyRegistry more = PolicyRegistry.PRODUCT.with("First-GPU", seed -> new SpreadPolicy());
    assertThat(more.names()).containsExactly("sharegpu", "binpack", "spread", "first-gpu");
    assertThat(more.create("first-gpu", 1)).isInstanceOf(SpreadPolicy.class);
    assertThat(PolicyRegistry.PRODUCT.contains("first-gpu")).isFalse();
    assertThatThrownBy(() -> PolicyRegistry.PRODUCT.with("binpack", seed -> new SpreadPolicy()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> PolicyRegistry.PRODUCT.names().add("x"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
