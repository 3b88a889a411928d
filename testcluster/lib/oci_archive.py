#!/usr/bin/env python3
"""Writes a one-layer OCI image archive (OCI layout in a tar) from a root file system folder.

usage: oci_archive.py --ref REF --out FILE [--entrypoint JSON] [--cmd JSON] [--env K=V]... [--workdir W] ROOTFS

The archive holds oci-layout, index.json (manifest annotated with io.containerd.image.name=REF and
org.opencontainers.image.ref.name=<tag>) and blobs/sha256/*; the layer is an uncompressed tar owned by
root with mtime 0, so the same input gives the same image. `ctr -n k8s.io images import FILE` imports it.
"""
import argparse
import hashlib
import io
import json
import os
import sys
import tarfile


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ref", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--entrypoint", default=None, help="JSON list")
    p.add_argument("--cmd", default=None, help="JSON list")
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--workdir", default="/")
    p.add_argument("rootfs")
    a = p.parse_args()
    if not os.path.isdir(a.rootfs):
        sys.exit(f"oci_archive.py: {a.rootfs} is not a folder")

    def reset(info):
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = 0
        return info

    layer_buf = io.BytesIO()
    with tarfile.open(fileobj=layer_buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name in sorted(os.listdir(a.rootfs)):
            t.add(os.path.join(a.rootfs, name), arcname=name, recursive=False, filter=reset)
            full = os.path.join(a.rootfs, name)
            if os.path.isdir(full) and not os.path.islink(full):
                for dirpath, dirnames, filenames in os.walk(full):
                    dirnames.sort()
                    for entry in dirnames + sorted(filenames):
                        path = os.path.join(dirpath, entry)
                        t.add(path, arcname=os.path.relpath(path, a.rootfs), recursive=False, filter=reset)
    layer = layer_buf.getvalue()

    blobs = {}

    def blob(data):
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        blobs[digest] = data
        return digest

    layer_digest = blob(layer)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Env": a.env or ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                   "WorkingDir": a.workdir},
        "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
        "history": [{"created_by": "testcluster/lib/oci_archive.py"}],
    }
    if a.entrypoint:
        config["config"]["Entrypoint"] = json.loads(a.entrypoint)
    if a.cmd:
        config["config"]["Cmd"] = json.loads(a.cmd)
    config_bytes = json.dumps(config, sort_keys=True).encode()
    config_digest = blob(config_bytes)
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest,
                   "size": len(config_bytes)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": layer_digest,
                    "size": len(layer)}],
    }
    manifest_bytes = json.dumps(manifest, sort_keys=True).encode()
    manifest_digest = blob(manifest_bytes)
    tag = a.ref.rsplit(":", 1)[1] if ":" in a.ref.rsplit("/", 1)[-1] else "latest"
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest_digest,
            "size": len(manifest_bytes), "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {"io.containerd.image.name": a.ref, "org.opencontainers.image.ref.name": tag},
        }],
    }

    def add_bytes(t, name, data):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        info.mode = 0o644
        t.addfile(reset(info), io.BytesIO(data))

    tmp = a.out + ".tmp"
    with tarfile.open(tmp, mode="w") as t:
        add_bytes(t, "oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
        add_bytes(t, "index.json", json.dumps(index, sort_keys=True).encode())
        for digest, data in blobs.items():
            add_bytes(t, "blobs/sha256/" + digest.split(":", 1)[1], data)
    os.replace(tmp, a.out)
    print(a.out)


if __name__ == "__main__":
    main()
