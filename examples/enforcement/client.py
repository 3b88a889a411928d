#!/usr/bin/env python3
"""One MPS client of the ShareGPU enforcement check.

Runs with whatever CUDA_MPS_* environment the caller gives it (the environment the extender's bind
produces for a share) and prints one JSON line with what it measured.

  client.py memory --cap-mib 8192         try one allocation below the cap and one above it
  client.py matmul --seconds 10 --start-at EPOCH
                                          bf16 matrix multiplications for a fixed window that starts
                                          at a shared wall-clock time, so two clients overlap exactly
"""
import argparse
import json
import os
import sys
import time

import torch

MIB = 1024 * 1024


def env_snapshot():
    keys = ("CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT")
    return {k: os.environ.get(k) for k in keys}


def try_alloc(mib):
    """Returns (accepted, error) for one allocation of `mib` MiB on device 0."""
    try:
        t = torch.empty(mib * MIB, dtype=torch.uint8, device="cuda:0")
        t.fill_(1)
        torch.cuda.synchronize()
        del t
        torch.cuda.empty_cache()
        return True, None
    except RuntimeError as e:  # torch.OutOfMemoryError is a RuntimeError
        torch.cuda.empty_cache()
        return False, str(e).splitlines()[0][:160]


def memory(args):
    props = torch.cuda.get_device_properties(0)
    cap = args.cap_mib
    result = {"mode": "memory", "name": args.name, "env": env_snapshot(), "pid": os.getpid(),
              "sms": props.multi_processor_count,
              "total_mib_seen": props.total_memory // MIB, "cap_mib": cap, "trials": []}
    # Sizes relative to the cap: well below, just below (cap minus room for the context),
    # just above, well above. Each trial frees what it allocated.
    for mib in (cap // 2, cap - 1024, cap + 1024, cap * 2):
        ok, err = try_alloc(mib)
        result["trials"].append({"mib": mib, "above_cap": mib > cap, "accepted": ok, "error": err})
    # Incremental: 512 MiB blocks until refused; how much could this client hold in total?
    blocks = []
    while True:
        try:
            blocks.append(torch.empty(512 * MIB, dtype=torch.uint8, device="cuda:0"))
            torch.cuda.synchronize()
        except RuntimeError:
            break
        if len(blocks) * 512 > cap * 4:
            break
    result["incremental_max_mib"] = len(blocks) * 512
    del blocks
    torch.cuda.empty_cache()
    with open(f"/proc/{os.getpid()}/cgroup") as f:
        result["cgroup"] = f.read().strip().splitlines()
    print(json.dumps(result), flush=True)


def matmul(args):
    props = torch.cuda.get_device_properties(0)
    n = args.n
    # fp32 runs on the CUDA cores (TF32 off): far less power than bf16 tensor-core matmul, so the
    # GPU stays below its power limit and the SM clock does not depend on how many SMs are busy.
    torch.backends.cuda.matmul.allow_tf32 = False
    dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[args.dtype]
    a = torch.randn(n, n, device="cuda:0", dtype=dtype)
    b = torch.randn(n, n, device="cuda:0", dtype=dtype)
    c = torch.empty(n, n, device="cuda:0", dtype=dtype)
    for _ in range(5):  # warm-up: cuBLAS heuristics, clocks
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    delay = args.start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    start = time.time()
    iters = 0
    while True:
        for _ in range(4):
            torch.matmul(a, b, out=c)
        torch.cuda.synchronize()
        iters += 4
        elapsed = time.time() - start
        if elapsed >= args.seconds:
            break
    flops = 2.0 * n * n * n * iters
    print(json.dumps({"mode": "matmul", "name": args.name, "env": env_snapshot(), "pid": os.getpid(),
                      "sms": props.multi_processor_count, "n": n, "dtype": args.dtype, "iterations": iters,
                      "start": start, "seconds": elapsed, "tflops": flops / elapsed / 1e12}),
          flush=True)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("memory")
    m.add_argument("--cap-mib", type=int, required=True)
    m.add_argument("--name", default="client")
    t = sub.add_parser("matmul")
    t.add_argument("--seconds", type=float, default=10.0)
    t.add_argument("--start-at", type=float, default=0.0)
    t.add_argument("--n", type=int, default=8192)
    t.add_argument("--dtype", choices=["bf16", "fp32"], default="bf16")
    t.add_argument("--name", default="client")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print(json.dumps({"error": "CUDA not available (is the MPS daemon running?)",
                          "env": env_snapshot()}), flush=True)
        sys.exit(2)
    memory(args) if args.cmd == "memory" else matmul(args)


if __name__ == "__main__":
    main()
