/**
 * A real Kubernetes control plane (etcd, kube-apiserver, kube-scheduler) on loopback for e2e tests
 * and the demo, plus helpers to run the ShareGPU apps as child processes. Test support only:
 * nothing here ships in the product.
 */
@NullMarked
package io.sharegpu.testcluster;

import org.jspecify.annotations.NullMarked;
