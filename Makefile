# Aliases only: the work is done by ./mvnw and testcluster/ scripts.
MVN ?= ./mvnw -B -ntp
BENCH_ARGS ?=

.PHONY: build test unit e2e demo demo-keep demo-real bench-throughput bench-http bench-compare cluster-build fmt images plugin
build:
	$(MVN) -DskipTests package

## Everything CI runs: unit, slice, mock-server and e2e tests against the real control plane.
test: cluster-build
	$(MVN) verify -De2e

unit:
	$(MVN) verify

e2e: cluster-build
	$(MVN) verify -De2e

cluster-build:
	testcluster/build

fmt:
	$(MVN) -q spotless:apply

## The README's first command: a local control plane, simulated GPU nodes, examples placed on GPUs.
demo:
	examples/demo/run.sh

## The same, left running for kubectl (it prints how to use and stop it).
demo-keep:
	examples/demo/run.sh --keep

## ShareGPU as installed: a real kubelet node, the images imported, helm install of the chart, every
## component a pod, workloads printing the GPUs they were given (root; see examples/demo-real/run.sh).
demo-real:
	examples/demo-real/run.sh

## Pods/s bound by kube-scheduler with the ShareGPU extender vs. plain CPU pods without it.
## BENCH_ARGS="--nodes 200 --pods 1000" for a smaller run.
bench-throughput:
	testcluster/bench/throughput $(BENCH_ARGS)

## Every policy (the FGD paper's six baselines, the peers, sharegpu, binpack, spread) x every pod list
## of the Alibaba trace, 10 seeds: one table (docs/benchmarks.md) and a plot. About 2,500 replays:
## COMPARE_ARGS="--seeds 42-44" or "--lists default,cpu300" for a shorter run.
TRACE ?= ../shared/traces/alibaba-gpu-v2023/csv
COMPARE_ARGS ?=
bench-compare:
	$(MVN) -q -DskipTests -pl simulator -am clean package
	java -jar simulator/target/sharegpu-simulator.jar compare --nodes $(TRACE)/openb_node_list_gpu_node.csv \
	  --pods-dir $(TRACE) --policy all --seeds 42-51 --json compare.json --plot compare.png $(COMPARE_ARGS)

## HTTP latency of the extender's filter/prioritize: 5,000 nodes as API objects, 500 NodeNames, a full Pod.
## BENCH_ARGS="--nodes 1000 --requests 1000" for a smaller run.
bench-http:
	testcluster/bench/http-latency $(BENCH_ARGS)

## OCI archives of every image the chart runs, in images/target/ (see images/README.md).
## IMAGES_ARGS="--only scheduler-extender" for one; "--check" to rebuild without the cache and compare digests.
IMAGES_ARGS ?=
images:
	$(MVN) -DskipTests package -pl scheduler-extender,sharepod-controller,admission-webhook,node-agent -am
	images/build $(IMAGES_ARGS)

## kubectl sharegpu: kubectl-plugin/target/kubectl-sharegpu (put that folder on PATH, then
## `kubectl sharegpu nodes`), its krew archive and manifest (see kubectl-plugin/README.md).
plugin:
	$(MVN) -DskipTests package -pl api,kubectl-plugin -am
	kubectl-plugin/krew/pack
