package io.sharegpu.api.gpunode;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The GPUs of one node, named after its Node and written by the node agent (created directly in
 * tests and the demo). Cluster-scoped; {@code kubectl get gpunodes} shows the number of GPUs, the
 * first GPU's model, how many GPUs nothing is allocated on and how many are cordoned (both from the
 * scheduler extender's {@code status.allocation}); {@code -o wide} adds the enforcement, the
 * driver, how many GPUs are healthy and the last heartbeat.
 */
@Group(GPUNode.GROUP)
@Version(GPUNode.VERSION)
@Plural("gpunodes")
@Singular("gpunode")
@AdditionalPrinterColumn(
    name = "GPUS",
    jsonPath = ".status.gpuCount",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "MODEL",
    jsonPath = ".status.gpus[0].model",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "FREE",
    jsonPath = ".status.allocation.freeGpus",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "CORDONED",
    jsonPath = ".status.allocation.cordonedGpus",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "ENFORCEMENT",
    jsonPath = ".status.enforcement",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "DRIVER",
    jsonPath = ".status.driverVersion",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "HEALTHY",
    jsonPath = ".status.healthyGpus",
    type = AdditionalPrinterColumn.Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(
    name = "HEARTBEAT",
    jsonPath = ".status.heartbeatTime",
    type = AdditionalPrinterColumn.Type.DATE,
    priority = 1)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class GPUNode extends CustomResource<GPUNodeSpec, GPUNodeStatus> {

  public static final String GROUP = "sharegpu.io";
  public static final String VERSION = "v1alpha1";

  private static final long serialVersionUID = 1L;
}
