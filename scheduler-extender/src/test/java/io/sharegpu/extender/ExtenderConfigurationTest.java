package io.sharegpu.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import org.junit.jupiter.api.Test;

/**
 * The client configuration: token refresh is off only for client-certificate authentication. The
 * policy setting: a name that is not one of the product's policies stops start-up.
 */
class ExtenderConfigurationTest {

  private static ConfigBuilder base() {
    return new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:6443");
  }

  @Test
  void clientCertificateOnlyGetsATokenProviderWithoutAToken() {
    Config c =
        ExtenderConfiguration.withoutTokenRefresh(
            base().withClientCertData("Y2VydA==").withClientKeyData("a2V5").build());
    assertThat(c.getOauthTokenProvider()).isNotNull();
    assertThat(c.getOauthTokenProvider().getToken()).isNull();
    assertThat(c.getOauthToken()).isNull();
  }

  @Test
  void tokenConfigurationsAreLeftAlone() {
    Config token =
        ExtenderConfiguration.withoutTokenRefresh(
            base().withClientCertData("Y2VydA==").withOauthToken("t").build());
    assertThat(token.getOauthTokenProvider()).isNull();
    Config auto = base().withClientCertData("Y2VydA==").build();
    auto.setAutoOAuthToken("service-account-token");
    assertThat(ExtenderConfiguration.withoutTokenRefresh(auto).getOauthTokenProvider()).isNull();
    Config none = ExtenderConfiguration.withoutTokenRefresh(base().build());
    assertThat(none.getOauthTokenProvider()).isNull();
  }

  @Test
  void misspeltPolicyStopsStartUpNamingTheValidOnes() {
    assertThatThrownBy(() -> ExtenderConfiguration.resolvePolicy("binpak"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sharegpu.extender.policy")
        .hasMessageContaining("'binpak'")
        .hasMessageContaining("valid: sharegpu, binpack, spread");
  }

  @Test
  void paperBaselinesAreNotExtenderPolicies() {
    assertThatThrownBy(() -> ExtenderConfiguration.resolvePolicy("fgd"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("valid: sharegpu, binpack, spread");
  }

  @Test
  void productPoliciesResolveWhateverTheCase() {
    assertThat(ExtenderConfiguration.resolvePolicy("SPREAD").name()).isEqualTo("spread");
    assertThat(ExtenderConfiguration.resolvePolicy("sharegpu").name()).isEqualTo("sharegpu");
  }
}
