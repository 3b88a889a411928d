#!/usr/bin/env bash
# Records what the node agent parses on a real GPU machine into DIR, for the unit tests
# (node-agent/src/test/resources/recorded/). Read-only: changes no GPU setting.
#   node-agent/scripts/record-gpu.sh DIR
set -euo pipefail
dir=${1:?usage: record-gpu.sh DIR}
mkdir -p "$dir"
nvidia-smi -L >"$dir/nvidia-smi-L.txt"
# The exact query the agent's fallback runs (NvidiaSmiInventory.QUERY).
nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used,driver_version,mig.mode.current,utilization.gpu \
  --format=csv,noheader,nounits >"$dir/nvidia-smi-query-gpu.csv"
nvidia-smi >"$dir/nvidia-smi.txt"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$dir/nvidia-smi-q-clock-power.txt" || true
cat /proc/self/cgroup >"$dir/proc-self-cgroup.txt"
cat /proc/1/cgroup >"$dir/proc-1-cgroup.txt"
{ stat -fc %T /sys/fs/cgroup; grep cgroup /proc/self/mountinfo || true; } >"$dir/cgroup-mounts.txt"
{ ls -la /dev/nvidia* 2>&1; ldconfig -p | grep -E 'nvidia-ml|libcuda' || true; } >"$dir/devices-and-libs.txt"
python3 - >"$dir/nvml-ctypes.json" <<'PY'
import ctypes, json
nvml = ctypes.CDLL("libnvidia-ml.so.1")
assert nvml.nvmlInit_v2() == 0
out = {}
buf = ctypes.create_string_buffer(96)
nvml.nvmlSystemGetDriverVersion(buf, 96); out["driver"] = buf.value.decode()
n = ctypes.c_uint(); nvml.nvmlDeviceGetCount_v2(ctypes.byref(n)); out["count"] = n.value
class MemV2(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("total", ctypes.c_ulonglong), ("reserved", ctypes.c_ulonglong),
                ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]
class MemV1(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]
gpus = []
for i in range(n.value):
    h = ctypes.c_void_p(); nvml.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h))
    nvml.nvmlDeviceGetUUID(h, buf, 96); uuid = buf.value.decode()
    nvml.nvmlDeviceGetName(h, buf, 96); name = buf.value.decode()
    m2 = MemV2(); m2.version = ctypes.sizeof(MemV2) | (2 << 24)
    rc2 = nvml.nvmlDeviceGetMemoryInfo_v2(h, ctypes.byref(m2))
    m1 = MemV1(); rc1 = nvml.nvmlDeviceGetMemoryInfo(h, ctypes.byref(m1))
    cur = ctypes.c_uint(); pend = ctypes.c_uint()
    rcm = nvml.nvmlDeviceGetMigMode(h, ctypes.byref(cur), ctypes.byref(pend))
    gpus.append({"index": i, "uuid": uuid, "name": name, "memV2": {"rc": rc2, "total": m2.total, "reserved": m2.reserved,
                 "free": m2.free, "used": m2.used}, "memV1": {"rc": rc1, "total": m1.total, "free": m1.free, "used": m1.used},
                 "migMode": {"rc": rcm, "current": cur.value, "pending": pend.value}})
out["gpus"] = gpus
print(json.dumps(out, indent=1))
nvml.nvmlShutdown()
PY
echo "recorded into $dir" >&2
