{{/*
The topics of the connector's configuration, as `connector topics plan` lists
them (connector.TopicPlan): a YAML list of {variable, name, role, partitions,
config}. Names are the PAYSESSION_TOPIC_* values of .Values.env, else the
defaults; the periodic topics only when their publisher is on. helm/strimzi_test.go
checks the rendered KafkaTopics against the Go plan, so keep the two in step.
*/}}
{{- define "paysession.topicList" -}}
{{- $env := .Values.env -}}
{{- $s := .Values.strimzi.topics -}}
{{- $headroom := 65536 -}}
{{- $base := int64 $s.maxMessageBytes -}}
{{- $body := int64 (get $env "PAYSESSION_WEBHOOK_MAX_BODY_BYTES" | default "65536") -}}
{{- $sessionPartitions := $s.sessionPartitions | default $s.partitions -}}
{{- $keep := mul (int64 $s.redriveRetentionHours) 3600000 -}}
{{- $rows := list
  (list "INIT_PAYOUT" "payments.commands.init-payout" "command")
  (list "INIT_PAYMENT" "payments.commands.init-payment" "command")
  (list "CREATE_SESSION" "payments.commands.create-session" "command")
  (list "START_PAYOUT" "payments.commands.start-payout" "command")
  (list "START_PAYMENT" "payments.commands.start-payment" "command")
  (list "CAPTURE" "payments.commands.capture" "command")
  (list "REFUND" "payments.commands.refund" "command")
  (list "CONFIRM" "payments.commands.confirm" "command")
  (list "CANCEL" "payments.commands.cancel" "command")
  (list "DISABLE_RECURRING" "payments.commands.disable-recurring" "command")
  (list "FPS_VERIFICATION" "payments.commands.fps-verification" "command")
  (list "STATUS_REFRESH" "payments.commands.status-refresh" "command")
  (list "BANKPAY_PUSH" "payments.commands.bankpay-push" "command")
  (list "RETRY" "payments.commands.retry" "retry")
  (list "ATTEMPTS" "payments.commands.attempts" "attempts")
  (list "COMMAND_RESULTS" "payments.command-results" "results")
  (list "SESSION_UPDATES" "payments.sessions.updates" "session-updates")
  (list "SESSIONS" "payments.sessions" "sessions")
  (list "WEBHOOK_EVENTS" "payments.webhook-events" "webhook-events")
  (list "DEAD_LETTER" "payments.dead-letter" "dead-letter")
  (list "CONTROL" "payments.control" "control") -}}
{{- if not (has (get $env "PAYSESSION_PUBLISH_WALLET_BALANCE_INTERVAL" | default "0") (list "0" "0s")) }}
{{- $rows = append $rows (list "WALLET_BALANCES" "payments.wallet-balances" "periodic") }}
{{- end }}
{{- if not (has (get $env "PAYSESSION_PUBLISH_FPS_BANKS_INTERVAL" | default "0") (list "0" "0s")) }}
{{- $rows = append $rows (list "FPS_BANKS" "payments.fps-banks" "periodic") }}
{{- end }}
{{- range $rows }}
{{- $role := index . 2 }}
{{- $bytes := $base }}
{{- if has $role (list "retry" "dead-letter") }}{{ $bytes = add $base $headroom }}{{ end }}
{{- if has $role (list "session-updates" "webhook-events") }}{{ $bytes = max $base (add $body $headroom) }}{{ end }}
- variable: {{ printf "PAYSESSION_TOPIC_%s" (index . 0) }}
  name: {{ get $env (printf "PAYSESSION_TOPIC_%s" (index . 0)) | default (index . 1) | quote }}
  role: {{ $role }}
  partitions: {{ ternary $sessionPartitions $s.partitions (has $role (list "session-updates" "sessions" "webhook-events")) }}
  config:
    cleanup.policy: {{ ternary "compact" "delete" (has $role (list "sessions" "attempts" "control")) }}
    min.insync.replicas: {{ $s.minInsyncReplicas }}
    max.message.bytes: {{ $bytes }}
    {{- if has $role (list "retry" "dead-letter") }}
    retention.ms: {{ $keep }}
    {{- end }}
{{- end }}
{{- end -}}

{{/* The Strimzi Kafka cluster the KafkaTopic and KafkaUser resources belong to. */}}
{{- define "paysession.strimziCluster" -}}
{{- required "strimzi.cluster is required when strimzi.topics.enabled or strimzi.user.enabled: the name of the Strimzi Kafka resource (label strimzi.io/cluster)" .Values.strimzi.cluster -}}
{{- end -}}

{{/* The KafkaUser's name: the principal (User:<name>) the ACLs are for. */}}
{{- define "paysession.kafkaUserName" -}}
{{- .Values.strimzi.user.name | default (include "paysession.fullname" .) -}}
{{- end -}}
