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
 * first GPU's model and the enforcement.
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
    name = "ENFORCEMENT",
    jsonPath = ".status.enforcement",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class GPUNode extends CustomResource<GPUNodeSpec, GPUNodeStatus> {

  public static final String GROUP = "sharegpu.io";
  public static final String VERSION = "v1alpha1";

  private static final long serialVersionUID = 1L;
}
