{{/* Chart name. */}}
{{- define "paysession.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Fully qualified app name, at most 63 characters. */}}
{{- define "paysession.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "paysession.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "paysession.selectorLabels" -}}
app.kubernetes.io/name: {{ include "paysession.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "paysession.labels" -}}
helm.sh/chart: {{ include "paysession.chart" . }}
{{ include "paysession.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: connector
{{- end -}}

{{- define "paysession.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "paysession.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "paysession.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Where mounted secrets live in the container. */}}
{{- define "paysession.apiKeyDir" -}}/etc/paysession/api-key{{- end -}}
{{- define "paysession.serviceKeyDir" -}}/etc/paysession/service-keys{{- end -}}
{{- define "paysession.kafkaTLSDir" -}}/etc/paysession/kafka-tls{{- end -}}
{{- define "paysession.kafkaTLSCADir" -}}/etc/paysession/kafka-tls-ca{{- end -}}
{{- define "paysession.kafkaSASLDir" -}}/etc/paysession/kafka-sasl{{- end -}}
{{- define "paysession.registryDir" -}}/etc/paysession/registry{{- end -}}
{{- define "paysession.registryCADir" -}}/etc/paysession/registry-ca{{- end -}}
{{/* The key of keys.extraProjects[i] is mounted in projectKeyDir/i (ids need not be file names). */}}
{{- define "paysession.projectKeyDir" -}}/etc/paysession/project-keys{{- end -}}

{{/* Pod-side grace: the connector's grace plus preStop sleep plus margin. */}}
{{- define "paysession.terminationGrace" -}}
{{- add .Values.shutdownGracePeriodSeconds .Values.preStopSleepSeconds .Values.terminationGraceMarginSeconds -}}
{{- end -}}
