{{- define "floe.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "floe.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "floe.labels" -}}
{{ include "floe.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "floe.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "floe.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Where the auth Secret's keys are mounted. */}}
{{- define "floe.authDir" -}}/var/run/secrets/floe/auth{{- end -}}

{{/* Checks that fail the render with the value to fix. */}}
{{- define "floe.validate" -}}
{{- if not .Values.auth.existingSecret -}}
{{- fail "auth.existingSecret: name a Secret holding the API token (floe serves every interface in a pod, which needs one)" -}}
{{- end -}}
{{- if and .Values.redis.enabled .Values.redis.existingSecret -}}
{{- fail "redis: set redis.enabled or redis.existingSecret, not both" -}}
{{- end -}}
{{- if not (or .Values.redis.enabled .Values.redis.existingSecret) -}}
{{- fail "redis.existingSecret: name a Secret holding the Redis URL, or set redis.enabled (replicas share their checkpoints through Redis)" -}}
{{- end -}}
{{- if lt (int .Values.terminationGracePeriodSeconds) (add (int .Values.drainGraceSeconds) 8 | int) -}}
{{- fail "terminationGracePeriodSeconds: must be at least drainGraceSeconds + 8, so that floe can close after draining" -}}
{{- end -}}
{{- if and .Values.config.store (hasKey .Values.config.store "redis") -}}
{{- fail "config.store.redis: the Redis URL comes from redis.existingSecret or the subchart, never from the ConfigMap" -}}
{{- end -}}
{{- end -}}

{{/* The chart's part of floe's configuration; config is merged over it. */}}
{{- define "floe.baseConfig" -}}
{{- $full := include "floe.fullname" . -}}
{{- $hosts := list $full (printf "%s.%s" $full .Release.Namespace) (printf "%s.%s.svc" $full .Release.Namespace) (printf "%s.%s.svc.cluster.local" $full .Release.Namespace) -}}
{{- if .Values.ingress.enabled -}}{{- $hosts = append $hosts .Values.ingress.host -}}{{- end -}}
{{- $tokens := list (printf "${file:%s/%s}" (include "floe.authDir" .) .Values.auth.adminTokenKey) -}}
{{- $server := dict "addr" "0.0.0.0:8080" "adminTokens" $tokens "allowedHosts" $hosts "protectMetrics" (or .Values.metrics.protect .Values.ingress.enabled) -}}
{{- if .Values.auth.readTokenKey -}}
{{- $_ := set $server "readTokens" (list (printf "${file:%s/%s}" (include "floe.authDir" .) .Values.auth.readTokenKey)) -}}
{{- end -}}
{{- $roots := list "/var/run/secrets/floe" -}}
{{- $watcher := dict "workDir" "/var/lib/floe/work" "drainGrace" (printf "%ds" (int .Values.drainGraceSeconds)) -}}
{{- dict "server" $server "watcher" $watcher "security" (dict "secretFileRoots" $roots) "log" (dict "format" "json") | toYaml -}}
{{- end -}}
