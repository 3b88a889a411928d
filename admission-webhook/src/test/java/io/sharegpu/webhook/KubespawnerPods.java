package io.sharegpu.webhook;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

/**
 * Pods as JupyterHub's kubespawner (zero-to-jupyterhub 4.x, storage type none) creates them for a
 * user who picked a profile: name {@code jupyter-<user>}, labels {@code
 * component=singleuser-server} and {@code app=jupyterhub}, container {@code notebook}, {@code
 * extra_resource_limits} as limits only, {@code scheduler_name} and {@code extra_annotations}
 * copied.
 */
final class KubespawnerPods {

  private KubespawnerPods() {}

  static Pod pod(String user, String namespace, JupyterHubProfiles.Profile profile) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("jupyter-" + user)
        .withNamespace(namespace)
        .addToLabels("app", "jupyterhub")
        .addToLabels("component", "singleuser-server")
        .addToLabels("heritage", "jupyterhub")
        .addToLabels("release", "jhub")
        .addToLabels("chart", "jupyterhub-4.2.0")
        .addToLabels("hub.jupyter.org/network-access-hub", "true")
        .addToLabels("hub.jupyter.org/servername", "")
        .addToLabels("hub.jupyter.org/username", user)
        .addToAnnotations("hub.jupyter.org/username", user)
        .addToAnnotations("hub.jupyter.org/servername", "")
        .addToAnnotations(profile.extraAnnotations())
        .endMetadata()
        .withNewSpec()
        .withAutomountServiceAccountToken(false)
        .withEnableServiceLinks(false)
        .withRestartPolicy("OnFailure")
        .withSchedulerName(profile.schedulerName())
        .withNewSecurityContext()
        .withFsGroup(100L)
        .endSecurityContext()
        .addNewToleration()
        .withKey("hub.jupyter.org/dedicated")
        .withOperator("Equal")
        .withValue("user")
        .withEffect("NoSchedule")
        .endToleration()
        .addNewToleration()
        .withKey("hub.jupyter.org_dedicated")
        .withOperator("Equal")
        .withValue("user")
        .withEffect("NoSchedule")
        .endToleration()
        .addNewContainer()
        .withName("notebook")
        .withImage("quay.io/jupyter/pytorch-notebook:cuda12-latest")
        .withImagePullPolicy("IfNotPresent")
        .withArgs("jupyterhub-singleuser")
        .addNewEnv()
        .withName("JUPYTERHUB_USER")
        .withValue(user)
        .endEnv()
        .addNewEnv()
        .withName("JUPYTERHUB_API_URL")
        .withValue("http://hub:8081/hub/api")
        .endEnv()
        .addNewEnv()
        .withName("JUPYTERHUB_SERVICE_PREFIX")
        .withValue("/user/" + user + "/")
        .endEnv()
        .addNewEnv()
        .withName("MEM_GUARANTEE")
        .withValue("4000000000")
        .endEnv()
        .addNewPort()
        .withContainerPort(8888)
        .withName("notebook-port")
        .withProtocol("TCP")
        .endPort()
        .withNewResources()
        .addToLimits("cpu", new Quantity("8"))
        .addToLimits("memory", new Quantity("32G"))
        .addToLimits(profile.extraResourceLimits())
        .addToRequests("cpu", new Quantity("1"))
        .addToRequests("memory", new Quantity("4G"))
        .endResources()
        .withNewSecurityContext()
        .withRunAsUser(1000L)
        .withAllowPrivilegeEscalation(false)
        .endSecurityContext()
        .endContainer()
        .endSpec()
        .build();
  }
}
