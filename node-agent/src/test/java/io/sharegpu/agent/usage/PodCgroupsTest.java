package io.sharegpu.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.agent.Recorded;
import io.sharegpu.agent.usage.PodCgroups.PodContainer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodCgroupsTest {

  private static final String UID = "0c1e4c3a-5b8f-4f4e-9d6a-2f0c9a7b1e11";
  private static final String UID_ = UID.replace('-', '_');
  private static final String CID =
      "4f2c9d1e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d";

  static Stream<Arguments> cgroupFiles() {
    return Stream.of(
        Arguments.of(
            "v2 systemd containerd",
            "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + UID_
                + ".slice/cri-containerd-"
                + CID
                + ".scope\n",
            Optional.of(new PodContainer(UID, CID))),
        Arguments.of(
            "v2 systemd guaranteed cri-o",
            "0::/kubepods.slice/kubepods-pod" + UID_ + ".slice/crio-" + CID + ".scope\n",
            Optional.of(new PodContainer(UID, CID))),
        Arguments.of(
            "v2 cgroupfs",
            "0::/kubepods/besteffort/pod" + UID + "/" + CID + "\n",
            Optional.of(new PodContainer(UID, CID))),
        Arguments.of(
            "v1 cgroupfs docker",
            "12:pids:/kubepods/burstable/pod"
                + UID
                + "/"
                + CID
                + "\n11:memory:/kubepods/burstable/pod"
                + UID
                + "/"
                + CID
                + "\n1:name=systemd:/kubepods/burstable/pod"
                + UID
                + "/"
                + CID
                + "\n",
            Optional.of(new PodContainer(UID, CID))),
        Arguments.of(
            "v1 systemd docker",
            "4:devices:/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
                + UID_
                + ".slice/docker-"
                + CID
                + ".scope\n",
            Optional.of(new PodContainer(UID, CID))),
        Arguments.of(
            "pod sandbox level only",
            "0::/kubepods.slice/kubepods-pod" + UID_ + ".slice\n",
            Optional.of(new PodContainer(UID, ""))),
        Arguments.of(
            "recorded on the H200 (no pod)",
            Recorded.text("proc-self-cgroup.txt"),
            Optional.empty()),
        Arguments.of(
            "host systemd service",
            "0::/system.slice/nvidia-persistenced.service\n",
            Optional.empty()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cgroupFiles")
  void findsThePodOfAProcess(String name, String content, Optional<PodContainer> expected) {
    assertThat(PodCgroups.parse(content)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cgroupFiles")
  void readsHostProc(
      String name, String content, Optional<PodContainer> expected, @TempDir Path proc)
      throws Exception {
    Files.createDirectories(proc.resolve("4242"));
    Files.writeString(proc.resolve("4242/cgroup"), content);
    PodCgroups cgroups = new PodCgroups(proc);

    assertThat(cgroups.of(4242)).isEqualTo(expected);
    assertThat(cgroups.of(4243)).isEmpty();
  }
}
