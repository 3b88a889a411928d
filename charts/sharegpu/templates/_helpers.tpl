{{/* Chart name. */}}
{{- define "sharegpu.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every object name: <release>-<chart>, or <release> if it contains the chart name. */}}
{{- define "sharegpu.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of one component's objects. Call with (dict "root" $ "component" "extender"). */}}
{{- define "sharegpu.componentName" -}}
{{- printf "%s-%s" (include "sharegpu.fullname" .root) (include "sharegpu.componentSlug" .component) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Short name of a component in object names and labels. */}}
{{- define "sharegpu.componentSlug" -}}
{{- $slugs := dict "extender" "extender" "scheduler" "scheduler" "controller" "controller" "webhook" "webhook" "nodeAgent" "node-agent" "mpsDaemon" "mps-daemon" }}
{{- get $slugs . }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "sharegpu.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "sharegpu.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: sharegpu
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one component. Call with (dict "root" $ "component" "extender"). */}}
{{- define "sharegpu.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sharegpu.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ include "sharegpu.componentSlug" .component }}
{{- end }}

{{/* All labels of one component's objects. */}}
{{- define "sharegpu.componentLabels" -}}
{{ include "sharegpu.labels" .root }}
app.kubernetes.io/component: {{ include "sharegpu.componentSlug" .component }}
{{- end }}

{{/* Service account name of a component. */}}
{{- define "sharegpu.serviceAccountName" -}}
{{- $values := get .root.Values .component }}
{{- if $values.serviceAccount.create }}
{{- default (include "sharegpu.componentName" .) $values.serviceAccount.name }}
{{- else }}
{{- default "default" $values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Image reference of a component: repository:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "sharegpu.image" -}}
{{- $values := get .root.Values .component }}
{{- printf "%s:%s" $values.image.repository (default .root.Chart.AppVersion $values.image.tag) }}
{{- end }}

{{/* Service DNS name of the extender, which kube-scheduler calls. */}}
{{- define "sharegpu.extenderUrl" -}}
{{- printf "http://%s.%s.svc:%d" (include "sharegpu.componentName" (dict "root" . "component" "extender")) .Release.Namespace (int .Values.extender.service.port) }}
{{- end }}

{{/* Lease that elects the extender replica allowed to bind. */}}
{{- define "sharegpu.extenderBindLease" -}}
{{- default (printf "%s-bind" (include "sharegpu.componentName" (dict "root" . "component" "extender"))) .Values.extender.bindLeaseName }}
{{- end }}

{{/* Lease of the SharePod controller's leader election. */}}
{{- define "sharegpu.controllerLease" -}}
{{- default (include "sharegpu.componentName" (dict "root" . "component" "controller")) .Values.controller.leaderElection.leaseName }}
{{- end }}

{{/* Lease of the kube-scheduler leader election. */}}
{{- define "sharegpu.schedulerLease" -}}
{{- default (include "sharegpu.componentName" (dict "root" . "component" "scheduler")) .Values.scheduler.leaderElection.resourceName }}
{{- end }}

{{/* Secret holding the webhook's serving certificate. */}}
{{- define "sharegpu.webhookTlsSecret" -}}
{{- printf "%s-tls" (include "sharegpu.componentName" (dict "root" . "component" "webhook")) }}
{{- end }}

{{/*
Pod-level settings shared by every component: service account, pull secrets, scheduling, security.
Call with (dict "root" $ "component" "extender").
*/}}
{{- define "sharegpu.podCommon" -}}
{{- $values := get .root.Values .component -}}
serviceAccountName: {{ include "sharegpu.serviceAccountName" . }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if $values.affinity }}
affinity:
  {{- toYaml $values.affinity | nindent 2 }}
{{- else if hasKey $values "replicas" }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "sharegpu.selectorLabels" . | nindent 14 }}
{{- end }}
securityContext:
  {{- $default := dict "runAsNonRoot" true "runAsUser" 65532 "runAsGroup" 65532 "seccompProfile" (dict "type" "RuntimeDefault") }}
  {{- toYaml (include "sharegpu.overlay" (list $default $values.podSecurityContext) | fromYaml) | nindent 2 }}
{{- end }}

{{/*
The defaults with each key of the values set over them. Sprig's merge would keep a default where the
value is 0 or false (runAsUser: 0, runAsNonRoot: false, readOnlyRootFilesystem: false), so the MPS
daemon's root user was silently replaced by 65532. Call with (list $defaults $values).
*/}}
{{- define "sharegpu.overlay" -}}
{{- $result := deepCopy (index . 0) }}
{{- range $key, $value := (index . 1) }}
{{- $_ := set $result $key $value }}
{{- end }}
{{- toYaml $result }}
{{- end }}

{{/* Container security context: least privilege unless overridden key by key. */}}
{{- define "sharegpu.containerSecurityContext" -}}
{{- $values := get .root.Values .component -}}
{{- $default := dict "allowPrivilegeEscalation" false "readOnlyRootFilesystem" true "privileged" false "capabilities" (dict "drop" (list "ALL")) }}
{{- include "sharegpu.overlay" (list $default $values.securityContext) }}
{{- end }}

{{/* Pod template metadata of a component. */}}
{{- define "sharegpu.podMetadata" -}}
{{- $values := get .root.Values .component -}}
labels:
  {{- include "sharegpu.selectorLabels" . | nindent 2 }}
  {{- with $values.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- if or $values.podAnnotations .annotations }}
annotations:
  {{- with .annotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  {{- with $values.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end }}

{{/* ServiceAccount of a component, when serviceAccount.create. */}}
{{- define "sharegpu.serviceAccount" -}}
{{- $values := get .root.Values .component -}}
{{- if $values.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "sharegpu.serviceAccountName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "sharegpu.componentLabels" . | nindent 4 }}
  {{- with $values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{/* PodDisruptionBudget of a Deployment component, when enabled. */}}
{{- define "sharegpu.podDisruptionBudget" -}}
{{- $values := get .root.Values .component -}}
{{- if $values.podDisruptionBudget.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "sharegpu.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "sharegpu.componentLabels" . | nindent 4 }}
spec:
  maxUnavailable: {{ $values.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "sharegpu.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/* The subject of a component's bindings. */}}
{{- define "sharegpu.subject" -}}
- kind: ServiceAccount
  name: {{ include "sharegpu.serviceAccountName" . }}
  namespace: {{ .root.Release.Namespace }}
{{- end }}

{{/* The KubeSchedulerConfiguration of the sharegpu-scheduler profile. */}}
{{- define "sharegpu.schedulerConfig" -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: {{ .Values.scheduler.leaderElection.enabled }}
  resourceLock: leases
  resourceNamespace: {{ .Release.Namespace }}
  resourceName: {{ include "sharegpu.schedulerLease" . }}
profiles:
  - schedulerName: {{ .Values.schedulerName }}
extenders:
  - urlPrefix: {{ include "sharegpu.extenderUrl" . }}
    filterVerb: filter
    prioritizeVerb: prioritize
    preemptVerb: preempt
    bindVerb: bind
    weight: {{ .Values.scheduler.extenderWeight }}
    nodeCacheCapable: true
    managedResources:
      - name: sharegpu.io/gpu-milli
        ignoredByScheduler: false
      - name: sharegpu.io/gpu-memory
        ignoredByScheduler: false
    httpTimeout: {{ .Values.scheduler.extenderHttpTimeout }}
{{- end }}

{{/* Host folder of the MPS pipes: fixed, GPU pods mount it at this path (ShareGpuAnnotations.MPS_PIPE_DIRECTORY). */}}
{{- define "sharegpu.mpsPipeDirectory" -}}
/tmp/nvidia-mps
{{- end }}
