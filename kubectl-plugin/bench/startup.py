#!/usr/bin/env python3
"""Time to first line of kubectl-sharegpu under several JVM set-ups.

Runs each variant RUNS times (interleaved, so background load hits all alike) for `--help` and, with
--kubeconfig, for `nodes`, and prints the median and the fastest time from process start to the
first line on stdout, and to exit. Usage:

  kubectl-plugin/bench/startup.py [--kubeconfig FILE] [--runs 7] [--jdk25 /usr/lib/jvm/temurin-25-jdk-amd64]

Needs kubectl-plugin/target/kubectl-sharegpu.jar (./mvnw -pl api,kubectl-plugin -am package).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "..", "target")
JAR = os.path.join(TARGET, "kubectl-sharegpu.jar")
LAUNCHER = os.path.join(TARGET, "kubectl-sharegpu")


def first_line(cmd, env):
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    line = p.stdout.readline()
    first = time.perf_counter() - start
    p.stdout.read()
    p.wait()
    total = time.perf_counter() - start
    if not line:
        raise SystemExit("no output from " + " ".join(cmd))
    return first, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kubeconfig")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--jdk17", default=os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("java")))))
    ap.add_argument("--jdk25", default="/usr/lib/jvm/temurin-25-jdk-amd64")
    args = ap.parse_args()
    cache = tempfile.mkdtemp(prefix="sharegpu-startup-")
    j17 = os.path.join(args.jdk17, "bin", "java")
    j25 = os.path.join(args.jdk25, "bin", "java")
    jsa25 = os.path.join(cache, "auto-25.jsa")
    c1 = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k"]

    def env(java_home=None, cds="on"):
        e = dict(os.environ, SHAREGPU_CACHE_DIR=cache, SHAREGPU_CDS=cds)
        e.pop("JAVA_OPTS", None)
        if java_home:
            e["JAVA_HOME"] = java_home
            e.pop("SHAREGPU_JAVA", None)
        return e

    variants = [
        ("jdk17 java -jar", lambda a: [j17, "-jar", JAR] + a, env()),
        ("jdk17 C1 only", lambda a: [j17] + c1 + ["-jar", JAR] + a, env()),
        ("jdk17 launcher: C1 + AppCDS", lambda a: [LAUNCHER] + a, env(args.jdk17)),
    ]
    if os.path.exists(j25):
        variants += [
            ("jdk25 java -jar", lambda a: [j25, "-jar", JAR] + a, env()),
            ("jdk25 C1 + AppCDS (auto)", lambda a: [j25] + c1 + ["-XX:SharedArchiveFile=" + jsa25,
                "-XX:+AutoCreateSharedArchive", "-Xlog:cds=off", "-jar", JAR] + a, env()),
            ("jdk25 launcher: C1 + AOT cache", lambda a: [LAUNCHER] + a, env(args.jdk25)),
        ]
    commands = [("--help", ["--help"])]
    if args.kubeconfig:
        commands.append(("nodes", ["nodes", "--kubeconfig", args.kubeconfig]))

    # the launcher's first run trains its cache (once per jar and JDK): timed on its own
    first_runs = []
    for name, cmd, e in variants:
        if "launcher" in name:
            first_runs.append((name, first_line(cmd(commands[-1][1]), e)))
    # warm-up: page cache, and the archive -XX:+AutoCreateSharedArchive writes at the first exit
    for _, cmd, e in variants:
        for _, a in commands:
            first_line(cmd(a), e)
    results = {}
    for _ in range(args.runs):
        for name, cmd, e in variants:
            for cname, a in commands:
                results.setdefault((name, cname), []).append(first_line(cmd(a), e))

    print(f"{'variant':32} {'command':8} {'first line median':>18} {'min':>7} {'exit median':>12}")
    for (name, cname), rs in results.items():
        firsts = [r[0] for r in rs]
        totals = [r[1] for r in rs]
        print(f"{name:32} {cname:8} {statistics.median(firsts)*1000:15.0f} ms {min(firsts)*1000:4.0f} ms"
              f" {statistics.median(totals)*1000:9.0f} ms")
    for name, (first, total) in first_runs:
        print(f"{name:32} first run ever ({commands[-1][0]}, trains the cache): {first*1000:.0f} ms to first line")
    print(f"({args.runs} runs each, interleaved; nproc={os.cpu_count()}, load {os.getloadavg()[0]:.1f})")
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
