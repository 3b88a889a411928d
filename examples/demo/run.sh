#!/usr/bin/env bash
# The ShareGPU demo: a real kube-apiserver + etcd + kube-controller-manager + kube-scheduler on
# 127.0.0.1, the ShareGPU scheduler extender and SharePod controller, simulated GPU nodes
# (examples/demo/cluster.json) and example workloads (examples/sharepods/, examples/demo/workloads.yaml).
# Prints where every pod went and what each GPU holds, then stops everything (or keeps it with --keep).
#
#   examples/demo/run.sh            # run, print, clean up
#   examples/demo/run.sh --keep     # leave it running for kubectl; prints how to use and stop it
#   examples/demo/run.sh --stop DIR # stop a demo left running with --keep
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
demo=$repo/examples/demo
tc=$repo/testcluster
extender_jar=$repo/scheduler-extender/target/sharegpu-scheduler-extender.jar
controller_jar=$repo/sharepod-controller/target/sharegpu-sharepod-controller.jar
ready_timeout=${DEMO_READY_TIMEOUT:-180}    # seconds for each app to report ready
settle_timeout=${DEMO_SETTLE_TIMEOUT:-180}  # seconds for every pod to be bound or unschedulable

say() { printf 'demo: %s\n' "$*" >&2; }
failure=''
die() { failure=$*; printf 'demo: error: %s\n' "$*" >&2; exit 1; }
usage() {
  cat >&2 <<USAGE
usage: examples/demo/run.sh [--keep] [--dir DIR]
       examples/demo/run.sh --stop DIR
  --keep      leave the control plane, extender and controller running after the tables
  --dir DIR   state folder (default: a new temporary folder)
  --stop DIR  stop a demo started with --keep and delete DIR
environment: DEMO_REBUILD=1 (rebuild the jars), DEMO_READY_TIMEOUT (default 180 s), DEMO_SETTLE_TIMEOUT (default 180 s), SHAREGPU_CACHE
USAGE
  exit 2
}

# Stops the Java apps by their pid files (only if the process still names DIR), then the control plane.
stop_demo() {
  local dir=$1 name pid
  for name in sharepod-controller scheduler-extender; do
    [[ -f $dir/pids/$name.pid ]] || continue
    pid=$(<"$dir/pids/$name.pid")
    if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
      tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir"; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/pids/$name.pid"
  done
  "$tc/stop" --dir "$dir" >/dev/null 2>&1 || "$tc/stop" --dir "$dir" || true
}

keep=false dir=''
while (($#)); do
  case $1 in
    --keep) keep=true; shift ;;
    --dir) dir=${2:?--dir needs a folder}; shift 2 ;;
    --stop)
      d=${2:?--stop needs the demo folder}
      [[ -d $d ]] || die "$d does not exist"
      d=$(cd "$d" && pwd)
      [[ -f $d/kubeconfig && -d $d/pids ]] || die "$d is not a demo folder (no kubeconfig or pids/)"
      stop_demo "$d"
      rm -rf "$d"
      say "stopped and removed $d"
      exit 0 ;;
    -h|--help) usage ;;
    *) echo "demo: unknown argument '$1'" >&2; usage ;;
  esac
done

for tool in java python3 curl openssl; do
  command -v "$tool" >/dev/null || die "$tool is required but not on PATH"
done
java_major=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
[[ ${java_major%%.*} -ge 17 ]] 2>/dev/null || die "Java 17 or newer is required (found '${java_major:-unknown}')"
started=$SECONDS

# ---------------------------------------------------------------- build what is missing
say "locating the control plane binaries (the first build on a fresh machine takes about 12 minutes)"
bin=$("$tc/build") || die "testcluster/build failed (see its output above)"
# Jars are built when missing (Spring Boot's repackage stamps them with the fixed build timestamp, so
# their age says nothing); DEMO_REBUILD=1 rebuilds them from the working tree.
if [[ ! -f $extender_jar || ! -f $controller_jar || ${DEMO_REBUILD:-0} == 1 ]]; then
  say "building the extender and controller jars (./mvnw package -DskipTests; a few minutes the first time)"
  (cd "$repo" && ./mvnw -B -ntp -q -pl scheduler-extender,sharepod-controller -am package -DskipTests) ||
    die "the Maven build failed (see its output above)"
else
  say "using the existing jars in scheduler-extender/target and sharepod-controller/target (DEMO_REBUILD=1 rebuilds them)"
fi
[[ -f $extender_jar ]] || die "$extender_jar was not built"
[[ -f $controller_jar ]] || die "$controller_jar was not built"

# ---------------------------------------------------------------- control plane
if [[ -z $dir ]]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/sharegpu-demo.XXXXXX")
else
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
fi
mkdir -p "$dir/logs" "$dir/pids"
ok=false
on_exit() {
  local rc=$?
  if [[ $ok != true ]]; then
    say "failed after $((SECONDS - started)) s; last lines of the logs in $dir/logs:"
    local f
    for f in "$dir"/logs/*.log; do
      [[ -f $f ]] || continue
      printf '\n----- %s (last 25 lines)\n' "$f" >&2
      tail -n 25 "$f" >&2
    done
    ((rc != 0)) || rc=1
  fi
  if [[ $keep == true && $ok == true ]]; then
    exit "$rc"
  fi
  stop_demo "$dir"
  if [[ $ok == true ]]; then rm -rf "$dir"; else say "logs kept in $dir/logs${failure:+; the error: $failure}"; fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

say "starting etcd, kube-apiserver and kube-controller-manager in $dir"
"$tc/start" --dir "$dir" >/dev/null || die "testcluster/start failed"
# shellcheck disable=SC1091
source "$dir/env"
kc() { "$bin/kubectl" --kubeconfig "$dir/kubeconfig" "$@"; }

say "applying the CRDs (charts/sharegpu/crds)"
kc apply -f "$repo/charts/sharegpu/crds" >/dev/null || die "could not apply the CRDs"
# A CRD created a moment ago may have no conditions yet, which makes kubectl wait fail at once: retry.
for attempt in $(seq 1 12); do
  kc wait --for condition=Established crd --all --timeout=10s >/dev/null 2>&1 && break
  ((attempt < 12)) || die "the CRDs were not established within 2 minutes"
  sleep 1
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start_app NAME JAR PORT [ARG...]: runs the jar with the demo's kubeconfig, its log in DIR/logs/NAME.log
start_app() {
  local name=$1 jar=$2 port=$3
  shift 3
  KUBECONFIG=$dir/kubeconfig setsid nohup java -Xmx512m -XX:TieredStopAtLevel=1 \
    -Dsharegpu.demo.dir="$dir" -jar "$jar" --server.port="$port" --management.server.port="$port" "$@" \
    </dev/null >"$dir/logs/$name.log" 2>&1 &
  echo $! >"$dir/pids/$name.pid"
}
wait_ready() { # NAME PORT
  local name=$1 port=$2 pid deadline=$((SECONDS + ready_timeout))
  pid=$(<"$dir/pids/$name.pid")
  until curl -sf --max-time 2 "http://127.0.0.1:$port/actuator/health/readiness" >/dev/null; do
    kill -0 "$pid" 2>/dev/null || die "$name exited while starting (see $dir/logs/$name.log)"
    ((SECONDS < deadline)) || die "$name was not ready on port $port within ${ready_timeout}s"
    sleep 1
  done
  say "$name ready on http://127.0.0.1:$port"
}
extender_port=$(free_port)
controller_port=$(free_port)
while [[ $controller_port == "$extender_port" ]]; do controller_port=$(free_port); done
extender_management_port=$(free_port)
while [[ $extender_management_port == "$extender_port" || $extender_management_port == "$controller_port" ]]; do
  extender_management_port=$(free_port)
done
# the verbs (kube-scheduler's calls) and the extender's management port (/debug, /ui, /actuator)
extender_url=http://127.0.0.1:$extender_port
extender_management_url=http://127.0.0.1:$extender_management_port
say "starting the scheduler extender and the SharePod controller"
start_app scheduler-extender "$extender_jar" "$extender_port" \
  --sharegpu.extender.management-port="$extender_management_port"
start_app sharepod-controller "$controller_jar" "$controller_port"
wait_ready scheduler-extender "$extender_management_port"
wait_ready sharepod-controller "$controller_port"

say "starting kube-scheduler (profile sharegpu-scheduler, extender $extender_url)"
"$tc/start-scheduler" --dir "$dir" --extender-url "$extender_url" >/dev/null ||
  die "testcluster/start-scheduler failed"

# ---------------------------------------------------------------- simulated GPU nodes
say "creating the simulated GPU nodes from examples/demo/cluster.json"
mkdir -p "$dir/demo"
python3 - "$demo/cluster.json" "$dir/demo" <<'PY'
import json, sys, os
items = json.load(open(sys.argv[1]))["items"]
with open(os.path.join(sys.argv[2], "objects.txt"), "w") as index:
    for i, item in enumerate(items):
        status = item.pop("status", {})
        base = os.path.join(sys.argv[2], "%02d" % i)
        json.dump(item, open(base + "-object.json", "w"))
        json.dump({"status": status}, open(base + "-status.json", "w"))
        kind = "node" if item["kind"] == "Node" else "gpunodes.sharegpu.io"
        index.write("%s %s %s\n" % (base, kind, item["metadata"]["name"]))
PY
while read -r base kind name; do
  kc create -f "$base-object.json" >/dev/null || die "could not create $kind $name"
  kc patch "$kind" "$name" --subresource=status --type=merge --patch-file "$base-status.json" >/dev/null ||
    die "could not set the status of $kind $name"
  if [[ $kind == node ]]; then
    # The API server's TaintNodesByCondition admission taints every new Node not-ready; with no
    # kubelet and no node lifecycle controller nobody would lift it.
    kc patch node "$name" --type=merge -p '{"spec":{"taints":null}}' >/dev/null || die "could not untaint node $name"
  fi
done <"$dir/demo/objects.txt"
say "$(kc get nodes --no-headers | wc -l) nodes, $(kc get gpunodes.sharegpu.io --no-headers | wc -l) GPUNodes"

# ---------------------------------------------------------------- workloads
if compgen -G "$repo/examples/sharepods/*.yaml" >/dev/null; then
  say "applying examples/sharepods/"
  kc apply -n default -f "$repo/examples/sharepods/" >/dev/null || die "could not apply examples/sharepods/"
fi
say "applying examples/demo/workloads.yaml"
kc apply -f "$demo/workloads.yaml" >/dev/null || die "could not apply examples/demo/workloads.yaml"

# Done when every expected pod exists and each is bound or marked unschedulable by kube-scheduler.
say "waiting until every pod is bound or reported unschedulable (up to ${settle_timeout}s)"
deadline=$((SECONDS + settle_timeout)) stable=0
while :; do
  kc get pods,deployments.apps,jobs.batch,sharepods.sharegpu.io -A -o json >"$dir/demo/state.json" 2>/dev/null || true
  progress=$(python3 - "$dir/demo/state.json" <<'PY'
import json, sys
try:
    items = json.load(open(sys.argv[1]))["items"]
except Exception:
    print("0 0 1"); sys.exit()
expected = settled = 0
pods = []
for o in items:
    k = o["kind"]
    if k == "Deployment": expected += o["spec"].get("replicas", 1)
    elif k == "Job": expected += o["spec"].get("parallelism", 1)
    elif k == "SharePod": expected += 1
    elif k == "Pod" and o["spec"].get("schedulerName") == "sharegpu-scheduler":
        pods.append(o)
        if not o["metadata"].get("ownerReferences"): expected += 1
for p in pods:
    cond = {c["type"]: c for c in p.get("status", {}).get("conditions", [])}
    sched = cond.get("PodScheduled", {})
    # Unschedulable (no node fits) or SchedulerError (the extender rejected the request as a whole):
    # either way kube-scheduler has reported a FailedScheduling event for it.
    if p["spec"].get("nodeName") or sched.get("status") == "False":
        settled += 1
print(len(pods), settled, expected)
PY
)
  read -r total settled expected <<<"$progress"
  # Settled twice in a row, 2 s apart: a pod rejected while the extender's view was still filling
  # gets another attempt when the next cluster event requeues it.
  if ((total >= expected && settled == total && total > 0)); then
    ((++stable >= 2)) && break
  else
    stable=0
  fi
  ((SECONDS < deadline)) || die "after ${settle_timeout}s only $settled of $expected pods are bound or unschedulable"
  sleep 2
done
say "$settled pods bound or unschedulable ($((SECONDS - started)) s since the start)"

# ---------------------------------------------------------------- report
curl -sf --max-time 10 "$extender_management_url/debug/allocations" >"$dir/demo/allocations.json" ||
  die "GET $extender_management_url/debug/allocations failed"
kc get gpunodes.sharegpu.io -o json >"$dir/demo/gpunodes.json"
kc get pods -A -o json >"$dir/demo/pods.json"
kc get events -A --field-selector reason=FailedScheduling -o json >"$dir/demo/events.json"

if compgen -G "$repo/examples/sharepods/*.yaml" >/dev/null; then
  printf '\n== SharePods (kubectl get shp -A)\n'
  kc get shp -A
fi
python3 "$demo/report.py" "$dir/demo"

ok=true
printf '\n'
say "done in $((SECONDS - started)) s"
if [[ $keep == true ]]; then
  cat <<KEEP

The demo keeps running in $dir:
  export KUBECONFIG=$dir/kubeconfig
  $bin/kubectl get shp,pods -A -o wide      # or: testcluster/kubectl --dir $dir get shp,pods -A
  curl -s $extender_management_url/debug/allocations
  logs: $dir/logs/   (scheduler-extender.log, sharepod-controller.log, kube-scheduler.log, ...)
Stop it with:
  examples/demo/run.sh --stop $dir
KEEP
fi
