#!/usr/bin/env bash
# `make demo-real`: ShareGPU installed the way an operator installs it. A real control plane with one
# real kubelet node (containerd, runc, bridge CNI, kube-proxy, cluster DNS), the images `make images`
# builds imported into the node, `helm install` of charts/sharegpu with its defaults (plus a recorded
# GPU inventory, since this machine has no GPU), every ShareGPU component running as a pod, then a
# SharePod, a JupyterHub-style pod and a Job that print the GPU environment they were given.
# Prints the pods, the allocation table and each workload's log, and checks that every workload's
# NVIDIA_VISIBLE_DEVICES is exactly the GPUs of its assignment annotation. Needs root.
#
#   examples/demo-real/run.sh            # run, print, clean up
#   examples/demo-real/run.sh --keep     # leave it running for kubectl; prints how to use and stop it
#   examples/demo-real/run.sh --stop DIR # stop a demo left running with --keep
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
demo=$repo/examples/demo-real
tc=$repo/testcluster
ready_timeout=${DEMO_READY_TIMEOUT:-600}   # seconds for the chart's pods to be Ready
started=$SECONDS

say() { printf 'demo-real: %s (%d s)\n' "$*" "$((SECONDS - started))" >&2; }
failure=''
die() { failure=$*; printf 'demo-real: error: %s\n' "$*" >&2; exit 1; }
usage() {
  cat >&2 <<USAGE
usage: examples/demo-real/run.sh [--keep] [--dir DIR]
       examples/demo-real/run.sh --stop DIR
  --keep      leave the cluster, its node and ShareGPU running after the tables
  --dir DIR   state folder (default: a new temporary folder)
  --stop DIR  stop a demo started with --keep and delete DIR
environment: DEMO_REBUILD=1 (rebuild the jars and images), DEMO_READY_TIMEOUT (default 600 s), SHAREGPU_CACHE
USAGE
  exit 2
}

keep=false dir=''
while (($#)); do
  case $1 in
    --keep) keep=true; shift ;;
    --dir) dir=${2:?--dir needs a folder}; shift 2 ;;
    --stop)
      d=${2:?--stop needs the demo folder}
      [[ -f $d/env && -f $d/kubeconfig ]] || die "$d is not a demo folder (no env or kubeconfig)"
      "$tc/stop" --dir "$d" && rm -rf "$d"
      exit 0 ;;
    -h|--help) usage ;;
    *) echo "demo-real: unknown argument '$1'" >&2; usage ;;
  esac
done
((EUID == 0)) || die "a real node runs containerd and the kubelet: run as root"
for tool in java python3 curl openssl go; do
  command -v $tool >/dev/null || die "$tool is required but not on PATH"
done
[[ -n $dir ]] || dir=$(mktemp -d /tmp/sharegpu-demo-real.XXXXXX)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

ok=false
on_exit() {
  local rc=$?
  if [[ $ok != true ]]; then
    say "failed; the ShareGPU pods and the node's logs:"
    if [[ -f $dir/kubeconfig ]]; then
      kc get pods -A -o wide >&2 2>&1 || true
      local pod
      for pod in $(kc -n sharegpu-system get pods -o name 2>/dev/null); do
        printf '\n----- %s (last 20 lines)\n' "$pod" >&2
        kc -n sharegpu-system logs "$pod" --all-containers --tail=20 >&2 2>&1 || true
      done
    fi
    ((rc != 0)) || rc=1
  fi
  if [[ $keep == true && $ok == true ]]; then exit "$rc"; fi
  "$tc/stop" --dir "$dir" >/dev/null 2>&1 || "$tc/stop" --dir "$dir" || true
  if [[ $ok == true ]]; then rm -rf "$dir"; else say "state kept in $dir${failure:+; the error: $failure}"; fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- images and tools
images=(scheduler-extender sharepod-controller admission-webhook node-agent kube-scheduler)
missing=false
for image in "${images[@]}"; do [[ -f $repo/images/target/$image.oci.tar ]] || missing=true; done
if [[ $missing == true || ${DEMO_REBUILD:-} == 1 ]]; then
  say "building the images (make images)"
  make -C "$repo" images >"$dir/images.log" 2>&1 || die "make images failed (see $dir/images.log)"
fi
helm=$("$tc/build-helm") || die "testcluster/build-helm failed"

# ---------------------------------------------------------------- cluster and node
say "starting etcd, kube-apiserver and kube-controller-manager (pod network) in $dir"
"$tc/start" --dir "$dir" --pod-network >/dev/null || die "testcluster/start failed"
# shellcheck disable=SC1091
source "$dir/env"
kc() { "$BIN_DIR/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }
say "starting a real node: containerd, kubelet, kube-proxy, cluster DNS"
node=$("$tc/start-node" --dir "$dir" | tail -n 1) || die "testcluster/start-node failed"
say "importing the images into the node's containerd"
"$tc/busybox-image" --out "$dir/busybox.oci.tar" >/dev/null || die "testcluster/busybox-image failed"
archives=()
for image in "${images[@]}"; do archives+=("$repo/images/target/$image.oci.tar"); done
"$tc/node-import" --dir "$dir" --name "$node" "${archives[@]}" "$dir/busybox.oci.tar" >/dev/null ||
  die "could not import the images into $node"

# ---------------------------------------------------------------- a GPU node without GPUs
say "labelling $node as a GPU node with four recorded H100s (nodeAgent.inventory.configMap)"
kc label node "$node" nvidia.com/gpu.present=true --overwrite >/dev/null
kc create namespace sharegpu-system >/dev/null
python3 - "$node" "$dir/$node.json" <<'PY'
import json, sys, uuid
node, out = sys.argv[1], sys.argv[2]
devices = [{
    "uuid": "GPU-" + str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{node}.gpu{i}.sharegpu.demo")),
    "index": i, "model": "NVIDIA H100 80GB HBM3", "memoryTotalBytes": 81559 * 2**20,
    "memoryUsedBytes": 0, "utilizationPercent": 0, "computeMilli": 1000,
    "migProfile": None, "parentUuid": None, "healthy": True} for i in range(4)]
json.dump({"source": "nvml", "driverVersion": "580.159.04", "devices": devices, "processes": []},
          open(out, "w"), indent=2)
PY
kc -n sharegpu-system create configmap gpu-inventories --from-file="$node.json=$dir/$node.json" >/dev/null

# ---------------------------------------------------------------- helm install
say "helm install sharegpu charts/sharegpu (the chart's defaults and the recorded inventory)"
KUBECONFIG=$dir/kubeconfig HELM_CACHE_HOME=$dir/helm/cache HELM_CONFIG_HOME=$dir/helm/config \
  HELM_DATA_HOME=$dir/helm/data "$helm" install sharegpu "$repo/charts/sharegpu" \
  --namespace sharegpu-system \
  --set nodeAgent.inventory.configMap=gpu-inventories \
  >"$dir/helm-install.log" 2>&1 || die "helm install failed: $(tail -n 5 "$dir/helm-install.log")"
say "waiting for every ShareGPU pod to be Running and Ready"
deadline=$((SECONDS + ready_timeout))
# 2 extenders, 2 kube-schedulers, 2 webhooks, the controller and one node agent
until [[ $(kc -n sharegpu-system get pods --no-headers 2>/dev/null | wc -l) -ge 8 ]] &&
  kc -n sharegpu-system wait --for=condition=Ready pods --all --timeout=10s >/dev/null 2>&1; do
  ((SECONDS < deadline)) || die "the ShareGPU pods were not all Ready within ${ready_timeout}s"
  sleep 5
done
kc -n sharegpu-system get pods -o wide
say "waiting for the node agent's GPUNode and the node's sharegpu.io capacity"
# (4000 milli; kubectl prints the quantity as 4k)
until [[ $(kc get node "$node" -o jsonpath='{.status.allocatable.sharegpu\.io/gpu-milli}' 2>/dev/null) =~ ^(4000|4k)$ ]]; do
  ((SECONDS < deadline)) || die "the node agent did not publish 4000 sharegpu.io/gpu-milli on $node"
  sleep 2
done
kc get gpunodes

# ---------------------------------------------------------------- workloads
say "applying examples/demo-real/workloads.yaml"
kc apply -f "$demo/workloads.yaml" >/dev/null
until [[ $(kc -n research get pods --field-selector=status.phase=Running --no-headers 2>/dev/null | wc -l) -ge 3 ]]; do
  ((SECONDS < deadline)) || { kc -n research get pods -o wide; kc -n research get events; die "the workloads did not all run"; }
  sleep 2
done
sleep 2   # let each container print its environment

printf '\n== kubectl get pods -A -o wide\n'
kc get pods -A -o wide
mkdir -p "$dir/demo"
kc get --raw "/api/v1/namespaces/sharegpu-system/services/http:sharegpu-extender:management/proxy/debug/allocations" \
  >"$dir/demo/allocations.json" || die "GET /debug/allocations through the API server's service proxy failed"
kc get gpunodes.sharegpu.io -o json >"$dir/demo/gpunodes.json"
kc get pods -A -o json >"$dir/demo/pods.json"
kc get events -A --field-selector reason=FailedScheduling -o json >"$dir/demo/events.json"
python3 "$repo/examples/demo/report.py" "$dir/demo"
printf '\n== What each workload was given (its log) against its assignment annotation\n'
for pod in $(kc -n research get pods -o jsonpath='{.items[*].metadata.name}'); do
  kc -n research logs "$pod" >"$dir/demo/log-$pod.txt" 2>&1 || true
done
python3 - "$dir/demo" <<'PY' || die "a workload's NVIDIA_VISIBLE_DEVICES does not match its assignment"
import json, os, sys
d = sys.argv[1]
bad = 0
for pod in json.load(open(os.path.join(d, "pods.json")))["items"]:
    if pod["metadata"]["namespace"] != "research":
        continue
    name = pod["metadata"]["name"]
    assigned = pod["metadata"].get("annotations", {}).get("sharegpu.io/assigned-gpus", "")
    log = open(os.path.join(d, f"log-{name}.txt")).read().strip()
    env = dict(line.split("=", 1) for line in log.splitlines() if "=" in line)
    visible = env.get("NVIDIA_VISIBLE_DEVICES", "")
    same = bool(assigned) and sorted(visible.split(",")) == sorted(assigned.split(","))
    print(f"research/{name}: assigned {assigned or '(none)'}: {'matches' if same else 'MISMATCH'}")
    for line in log.splitlines():
        print(f"    {line}")
    bad += not same
sys.exit(1 if bad else 0)
PY
ok=true
say "done"
if [[ $keep == true ]]; then
  cat <<KEEP

The demo is still running in $dir:
  $BIN_DIR/kubectl --kubeconfig $dir/kubeconfig get pods -A -o wide
  KUBECONFIG=$dir/kubeconfig $helm list -A
Stop it and delete the folder:
  examples/demo-real/run.sh --stop $dir
KEEP
fi
