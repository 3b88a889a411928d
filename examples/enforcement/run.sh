#!/usr/bin/env bash
# ShareGPU enforcement check: do MPS limits, set exactly as the extender's bind sets them, hold?
#
# Starts an MPS control daemon in a private pipe directory, runs clients with the environment of two
# shares (0.25 GPU / 8 GiB and 0.5 GPU / 16 GiB), reports memory caps and matmul throughput, and shuts
# the daemon down. It never changes the GPU's compute mode, MIG mode or clocks.
#
#   examples/enforcement/run.sh [--out DIR] [--seconds S] [--dtype bf16|fp32] [--n N]
#
# --dtype fp32 multiplies on the CUDA cores (TF32 off), which keeps the GPU below its power limit, so
# throughput reflects the SMs a share gets rather than the clock the power budget allows.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=""
seconds=10
dtype=bf16
n=8192
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --dtype) dtype=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for tool in nvidia-smi nvidia-cuda-mps-control python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not found" >&2; exit 1; }
done
[ -n "$out" ] || out=$(mktemp -d)
mkdir -p "$out"
results="$out/results.jsonl"
: >"$results"

pipe=$(mktemp -d /tmp/sharegpu-mps-pipe.XXXXXX)
logs=$(mktemp -d /tmp/sharegpu-mps-log.XXXXXX)
client="$here/client.py"

say() { echo "run.sh: $*" >&2; }

settings() { nvidia-smi --query-gpu=index,compute_mode,mig.mode.current --format=csv,noheader; }
before=$(settings)
say "GPU settings before: $before"

stop_daemon() {
  if [ -S "$pipe/control" ] || [ -e "$pipe/control" ]; then
    echo quit | CUDA_MPS_PIPE_DIRECTORY="$pipe" nvidia-cuda-mps-control || true
    for _ in $(seq 1 50); do pgrep -f "nvidia-cuda-mps-control -d" >/dev/null || break; sleep 0.2; done
  fi
  after=$(settings)
  say "GPU settings after:  $after"
  if [ "$after" != "$before" ]; then say "GPU settings CHANGED"; fi
  cp "$logs"/*.log "$out"/ 2>/dev/null || true
  rm -rf "$pipe" "$logs"
}
trap stop_daemon EXIT

CUDA_MPS_PIPE_DIRECTORY="$pipe" CUDA_MPS_LOG_DIRECTORY="$logs" nvidia-cuda-mps-control -d
for _ in $(seq 1 50); do [ -e "$pipe/control" ] && break; sleep 0.1; done
[ -e "$pipe/control" ] || { say "MPS control daemon did not create $pipe/control"; exit 1; }
say "MPS control daemon up, pipe directory $pipe"

# The environment our bind produces for a share (see api ShareGpuEnv / AssignmentAnnotations):
#   0.25 GPU / 8 GiB  -> CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M
#   0.5 GPU / 16 GiB  -> CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=16384M
share_a() { env CUDA_MPS_PIPE_DIRECTORY="$pipe" CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M "$@"; }
share_b() { env CUDA_MPS_PIPE_DIRECTORY="$pipe" CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=16384M "$@"; }
whole() { env CUDA_MPS_PIPE_DIRECTORY="$pipe" "$@"; }

# Samples SM clock, power and utilisation for the window [start, start+seconds) into $out/clocks-<phase>.csv.
sample_clocks() { # phase start
  local phase=$1 start=$2
  python3 -c "import time,sys; d=float(sys.argv[1])-time.time(); time.sleep(max(0,d))" "$start"
  timeout "$seconds" nvidia-smi --query-gpu=clocks.sm,power.draw,utilization.gpu \
    --format=csv,noheader,nounits -lms 250 >"$out/clocks-$phase.csv" 2>/dev/null || true
}

phase() { # phase-name then pairs of "label" "share-function"
  local name=$1; shift
  local start; start=$(python3 -c "import time; print(time.time() + 12)")
  local pids=()
  while [ $# -gt 0 ]; do
    local label=$1 share=$2; shift 2
    "$share" python3 "$client" matmul --dtype "$dtype" --n "$n" --seconds "$seconds" --start-at "$start" --name "$name/$label" \
      >>"$results" 2>"$out/$name-$label.err" &
    pids+=($!)
  done
  sample_clocks "$name" "$start" &
  local sampler=$!
  if [ "$name" = together ]; then
    sleep 17 # inside the window: what NVML reports as running compute processes under MPS
    nvidia-smi --query-compute-apps=pid,process_name,used_memory,gpu_uuid --format=csv,noheader,nounits \
      >"$out/compute-apps-under-mps.csv" 2>&1 || true
  fi
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  wait "$sampler" || true
  [ $rc -eq 0 ] || { say "phase $name: a client failed (see $out/$name-*.err)"; cat "$out/$name"-*.err >&2; exit 1; }
  say "phase $name done"
}

say "memory caps"
share_a python3 "$client" memory --cap-mib 8192 --name share-0.25 >>"$results"
share_b python3 "$client" memory --cap-mib 16384 --name share-0.5 >>"$results"

say "throughput (${seconds}s windows)"
phase whole w whole
phase alone-0.25 a share_a
phase alone-0.5 b share_b
phase together a share_a b share_b

python3 "$here/report.py" "$out" | tee "$out/report.txt"
