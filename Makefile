# Aliases only: the work is done by ./mvnw and testcluster/ scripts.
MVN ?= ./mvnw -B -ntp
BENCH_ARGS ?=

.PHONY: build test unit e2e demo cluster-build fmt
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
