package io.sharegpu.core;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import java.util.ArrayList;
import java.util.List;

/** Small builders for tests. */
public final class Fixtures {
  public static final String H100 = "NVIDIA H100 80GB HBM3";
  public static final String A100 = "NVIDIA A100-SXM4-40GB";
  public static final long H100_MIB = 81559;
  public static final long A100_MIB = 40960;

  private Fixtures() {}

  /** A node with {@code count} healthy whole H100s named {@code <node>-g<i>}. */
  public static GpuNode h100Node(String name, int count) {
    return node(name, count, H100, H100_MIB);
  }

  public static GpuNode node(String name, int count, String model, long mib) {
    List<Gpu> gpus = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      gpus.add(Gpu.whole(uuid(name, i), i, model, mib));
    }
    return GpuNode.of(name, gpus);
  }

  public static String uuid(String node, int i) {
    return "GPU-" + node + "-g" + i;
  }

  /** An allocation of one share container on one GPU. */
  public static Allocation share(String uid, String node, String uuid, int milli, long mib) {
    return new Allocation(
        "ns/" + uid,
        uid,
        node,
        List.of(new ContainerGrant("main", List.of(new GpuGrant(uuid, milli, mib)), milli)),
        AllocationState.BOUND);
  }

  /** An allocation of whole GPUs to one container. */
  public static Allocation whole(String uid, String node, long mib, String... uuids) {
    List<GpuGrant> gs = new ArrayList<>();
    for (String u : uuids) {
      gs.add(new GpuGrant(u, 1000, mib));
    }
    return new Allocation(
        "ns/" + uid,
        uid,
        node,
        List.of(new ContainerGrant("main", gs, 1000)),
        AllocationState.BOUND);
  }
}
