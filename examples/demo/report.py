#!/usr/bin/env python3
"""Prints the demo's tables from the JSON files in a folder: pods.json, gpunodes.json,
allocations.json (GET /debug/allocations on the extender's management port) and events.json (FailedScheduling events).

Used by examples/demo/run.sh and examples/demo-real/run.sh:  python3 report.py FOLDER
"""
import json, os, sys
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))
pods = [p for p in load("pods.json")["items"] if p["spec"].get("schedulerName") == "sharegpu-scheduler"]
gpunodes = load("gpunodes.json")["items"]
allocs = load("allocations.json")
if isinstance(allocs, dict):
    allocs = allocs.get("allocations") or allocs.get("items") or []
events = load("events.json")["items"]

def table(title, header, rows):
    print("\n== " + title)
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())

def first(a, *keys, default=None):
    for k in keys:
        if a.get(k) is not None:
            return a[k]
    return default

uuid_where = {}
for n in gpunodes:
    for g in n.get("status", {}).get("gpus", []):
        uuid_where[g["uuid"]] = (n["metadata"]["name"], g.get("index"))

rows = []
for p in sorted(pods, key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"])):
    ann = p["metadata"].get("annotations", {})
    gpus = ann.get("sharegpu.io/assigned-gpus", "")
    per = sorted((k[len("sharegpu.io/assigned-gpus."):], v)
                 for k, v in ann.items() if k.startswith("sharegpu.io/assigned-gpus."))
    if per and not gpus:
        gpus = "; ".join("%s: %s" % kv for kv in per)
    req = [c.get("resources", {}).get("limits", {}).get("sharegpu.io/gpu-milli", "-") for c in p["spec"]["containers"]]
    node = p["spec"].get("nodeName") or "(pending)"
    idx = ",".join(str(uuid_where.get(u.strip(), ("", "?"))[1]) for u in gpus.replace(";", ",").split(",") if u.strip().startswith(("GPU-", "MIG-")))
    rows.append(["%s/%s" % (p["metadata"]["namespace"], p["metadata"]["name"]), "+".join(req), node,
                 idx or "-", gpus or "-"])
table("Pods (scheduler sharegpu-scheduler)", ["POD", "GPU-MILLI", "NODE", "GPU#", "ASSIGNED GPUS"], rows)

by_gpu = {}
for a in allocs:
    uuid = first(a, "uuid", "gpuUuid", default="?")
    pod = first(a, "pod", "podName", default="?")
    ns = first(a, "namespace", "podNamespace")
    if ns and "/" not in pod:
        pod = ns + "/" + pod
    cont = first(a, "container", "containerName")
    state = first(a, "state", default="")
    label = pod + ("[%s]" % cont if cont else "") + ("" if state in ("", "BOUND", "bound", "Bound") else " (%s)" % state)
    e = by_gpu.setdefault(uuid, {"pods": [], "milli": 0, "mem": 0, "node": first(a, "node", "nodeName")})
    e["pods"].append(label)
    e["milli"] += int(first(a, "computeMilli", "milli", default=0))
    e["mem"] += int(first(a, "memoryMib", "memoryMiB", default=0))
rows = []
for n in sorted(gpunodes, key=lambda n: n["metadata"]["name"]):
    for g in sorted(n.get("status", {}).get("gpus", []), key=lambda g: g.get("index", 0)):
        e = by_gpu.pop(g["uuid"], {"pods": [], "milli": 0, "mem": 0})
        rows.append([n["metadata"]["name"], g.get("index", "?"), g.get("model", "?"),
                     "%d/%d" % (e["milli"], g.get("computeMilli", 1000)),
                     "%d/%d" % (e["mem"], g.get("memoryMiB", 0)),
                     ", ".join(sorted(e["pods"])) or "-"])
for uuid, e in by_gpu.items():  # allocations on GPUs no GPUNode lists (should not happen)
    rows.append([e.get("node") or "?", "?", uuid, "%d/?" % e["milli"], "%d/?" % e["mem"], ", ".join(e["pods"])])
table("GPU allocations (GET /debug/allocations): node x GPU x pods", ["NODE", "GPU", "MODEL", "COMPUTE MILLI", "MEMORY MIB", "PODS"], rows)

latest = {}
for e in events:
    o = e["involvedObject"]
    key = "%s/%s" % (o.get("namespace"), o.get("name"))
    t = e.get("lastTimestamp") or e.get("eventTime") or ""
    if key not in latest or t >= latest[key][0]:
        latest[key] = (t, e.get("message", ""))
unsched = [p for p in pods if not p["spec"].get("nodeName")]
print("\n== Unschedulable pods")
if not unsched:
    print("(none)")
for p in unsched:
    key = "%s/%s" % (p["metadata"]["namespace"], p["metadata"]["name"])
    cond = next((c for c in p.get("status", {}).get("conditions", []) if c["type"] == "PodScheduled"), {})
    msg = latest.get(key, ("", cond.get("message", "")))[1]
    print("%s: FailedScheduling: %s" % (key, msg))
