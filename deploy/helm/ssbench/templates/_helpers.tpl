{{/* The release's name prefix (at most 52 characters: room for suffixes). */}}
{{- define "ssbench.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ssbench.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ssbench.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ssbench.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "ssbench.authSecret" -}}
{{- .Values.auth.existingSecret | default (printf "%s-auth" (include "ssbench.fullname" .)) -}}
{{- end -}}

{{- define "ssbench.masterHost" -}}
{{- .Values.workers.masterHost | default (printf "%s-master" (include "ssbench.fullname" .)) -}}
{{- end -}}

{{/* This run's files under /results: RELEASE-REVISION. */}}
{{- define "ssbench.runName" -}}
{{- printf "%s-%d" .Release.Name (int .Release.Revision) -}}
{{- end -}}

{{- define "ssbench.curveCheck" -}}
{{- if and .Values.curve.enabled (not .Values.curve.existingSecret) -}}
{{- fail "curve.enabled needs curve.existingSecret (docs/kubernetes.rst)" -}}
{{- end -}}
{{- end -}}
