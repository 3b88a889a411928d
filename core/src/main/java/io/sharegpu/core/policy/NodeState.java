package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Plain numbers of a node for the policies: free compute per GPU (0 for an unhealthy, MIG-parent or
 * whole-held GPU), GPU models and free host CPU, optionally after a candidate grant.
 */
final class NodeState {
  final int[] free;
  final String[] models;
  final long freeCpu;
  final boolean cpuTracked;

  private NodeState(int[] free, String[] models, long freeCpu, boolean cpuTracked) {
    this.free = free;
    this.models = models;
    this.freeCpu = freeCpu;
    this.cpuTracked = cpuTracked;
  }

  /** The node now. */
  static NodeState of(NodeView view) {
    return after(view, List.of(), 0);
  }

  /** The node after {@code grant} and {@code cpuMilli} more host CPU are taken. */
  static NodeState after(NodeView view, List<ContainerGrant> grant, long cpuMilli) {
    List<GpuUsage> gpus = view.gpus();
    int n = gpus.size();
    int[] free = new int[n];
    String[] models = new String[n];
    for (int i = 0; i < n; i++) {
      GpuUsage u = gpus.get(i);
      Gpu g = u.gpu();
      models[i] = g.model();
      free[i] = g.healthy() && !g.cordoned() && !u.exclusive() ? u.freeMilli() : 0;
    }
    for (int c = 0, cn = grant.size(); c < cn; c++) {
      List<GpuGrant> gg = grant.get(c).gpus();
      for (int k = 0, kn = gg.size(); k < kn; k++) {
        GpuGrant x = gg.get(k);
        for (int i = 0; i < n; i++) {
          if (gpus.get(i).gpu().uuid().equals(x.uuid())) {
            free[i] = Math.max(0, free[i] - x.computeMilli());
            break;
          }
        }
      }
    }
    boolean tracked = view.node().cpuMilli() > 0;
    long cpu = tracked ? Math.max(0, view.freeCpuMilli() - cpuMilli) : Long.MAX_VALUE;
    return new NodeState(free, models, cpu, tracked);
  }

  /** Free compute of one GPU as the policies count it: 0 when unhealthy, cordoned or held whole. */
  static int free(GpuUsage u) {
    return u.gpu().healthy() && !u.gpu().cordoned() && !u.exclusive() ? u.freeMilli() : 0;
  }

  /** {@code of(view).totalFree()} without building the state. */
  static int totalFree(NodeView view) {
    List<GpuUsage> gpus = view.gpus();
    int t = 0;
    for (int i = 0, n = gpus.size(); i < n; i++) {
      t += free(gpus.get(i));
    }
    return t;
  }

  /**
   * {@code of(view).freeCpu}: free host CPU, {@code Long.MAX_VALUE} when the node does not track
   * it.
   */
  static long freeCpu(NodeView view) {
    return view.node().cpuMilli() > 0 ? Math.max(0, view.freeCpuMilli()) : Long.MAX_VALUE;
  }

  /** Position of the GPU with this UUID in the view, or -1; identity is tried first. */
  static int position(NodeView view, String uuid) {
    List<GpuUsage> gpus = view.gpus();
    int n = gpus.size();
    for (int i = 0; i < n; i++) {
      if (gpus.get(i).gpu().uuid() == uuid) {
        return i;
      }
    }
    for (int i = 0; i < n; i++) {
      if (gpus.get(i).gpu().uuid().equals(uuid)) {
        return i;
      }
    }
    return -1;
  }

  static NodeState after(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    return after(view, grant, pod.cpuMilli());
  }

  int totalFree() {
    int t = 0;
    for (int f : free) {
      t += f;
    }
    return t;
  }

  int fullyFree() {
    int c = 0;
    for (int f : free) {
      if (f >= 1000) {
        c++;
      }
    }
    return c;
  }

  /**
   * FGD's fragment of this node for a workload: for each shape, all free GPU compute if the shape
   * cannot run here (no GPU asked, model not allowed, not enough CPU or GPUs), else the free
   * compute of GPUs with less free than the shape asks per GPU; weighted by the shape's
   * probability.
   */
  double fragment(Workload w) {
    int n = free.length;
    int total = totalFree();
    if (total == 0) {
      return 0;
    }
    double f = 0;
    for (int s = 0, sn = w.size(); s < sn; s++) {
      double p = w.probability(s);
      if (p == 0) {
        continue;
      }
      PodShape m = w.shape(s);
      if (m.gpuCount() == 0 || (cpuTracked && m.cpuMilli() > freeCpu)) {
        f += p * total;
        continue;
      }
      int fit = 0;
      int below = 0;
      for (int i = 0; i < n; i++) {
        if (!w.allowed(models[i])[s]) {
          below += free[i];
        } else if (free[i] >= m.gpuMilli()) {
          fit++;
        } else {
          below += free[i];
        }
      }
      f += p * (fit >= m.gpuCount() ? below : total);
    }
    return f;
  }
}
