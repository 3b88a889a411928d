package io.sharegpu.api.sharepod;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A pod with a GPU request: the SharePod controller creates one Pod from {@code spec.template} with
 * {@code spec.gpu} turned into sharegpu.io resources and annotations, and reports where it ran.
 * {@code kubectl get shp} shows REQUEST, LIMIT, MEMORY, NODE, GPUS, PHASE, PRIORITY (the template's
 * {@code priorityClassName}, which its pod gets; empty: the cluster's default priority), AGE.
 */
@Group(SharePod.GROUP)
@Version(SharePod.VERSION)
@Plural("sharepods")
@Singular("sharepod")
@ShortNames("shp")
@AdditionalPrinterColumn(
    name = "REQUEST",
    jsonPath = ".spec.gpu.request",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "LIMIT",
    jsonPath = ".spec.gpu.limit",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "MEMORY",
    jsonPath = ".spec.gpu.memory",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "NODE",
    jsonPath = ".status.nodeName",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "GPUS",
    jsonPath = ".status.gpuList",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "PHASE",
    jsonPath = ".status.phase",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "PRIORITY",
    jsonPath = ".spec.template.spec.priorityClassName",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class SharePod extends CustomResource<SharePodSpec, SharePodStatus> implements Namespaced {

  public static final String GROUP = "sharegpu.io";
  public static final String VERSION = "v1alpha1";

  private static final long serialVersionUID = 1L;
}
