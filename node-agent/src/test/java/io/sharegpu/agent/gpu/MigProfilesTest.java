package io.sharegpu.agent.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MigProfilesTest {

  @ParameterizedTest
  @CsvSource({"1,7,142", "2,7,285", "3,7,428", "4,7,571", "7,7,1000", "1,4,250", "1,0,142"})
  void computeShareRoundsDown(int slices, int total, int milli) {
    assertThat(MigProfiles.computeMilli(slices, total)).isEqualTo(milli);
  }

  @ParameterizedTest
  @CsvSource({"1g.18gb,1,18000000000", "3g.71gb,3,71000000000", "7g.141gb,7,141000000000"})
  void readsProfileNames(String profile, int slices, long bytes) {
    assertThat(MigProfiles.slices(profile)).isEqualTo(slices);
    assertThat(MigProfiles.memoryBytes(profile)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource({"1g", "big", "1c.2g.10gb"})
  void rejectsOtherNames(String profile) {
    assertThatThrownBy(() -> MigProfiles.slices(profile))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
