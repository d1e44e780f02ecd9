#!/bin/bash
# Runs one Kafka node configured like the official apache/kafka image: every variable
# KAFKA_<NAME> (but KAFKA_HEAP_OPTS and KAFKA_OPTS) is the property <name>, lower-cased, with
# '___' for '-', '__' for '_' and '_' for '.'; CLUSTER_ID is the cluster id. The data folder
# (log.dirs) is formatted only when it holds no node yet, so a restart on the same volume keeps
# its data.
set -euo pipefail
conf=/opt/kafka/server.properties
: >"$conf"
while IFS='=' read -r name value; do
  case "$name" in
    KAFKA_HEAP_OPTS | KAFKA_OPTS | KAFKA_) continue ;;
    KAFKA_*)
      prop=$(sed -e 's/^KAFKA_//' -e 's/___/-/g' -e 's/__/@/g' -e 's/_/./g' -e 's/@/_/g' <<<"$name" | tr '[:upper:]' '[:lower:]')
      printf '%s=%s\n' "$prop" "$value" >>"$conf"
      ;;
  esac
done < <(env)
data=$(sed -n 's/^log\.dirs=//p' "$conf")
data=${data:-/var/lib/kafka/data}
mkdir -p "$data"
java=(java ${KAFKA_HEAP_OPTS:--Xmx512m -Xms128m} -XX:+UseSerialGC ${KAFKA_OPTS:-}
  -Dlog4j2.configurationFile=/opt/kafka/log4j2.properties -cp '/opt/kafka/libs/*')
if [ ! -e "$data/meta.properties" ]; then
  "${java[@]}" kafka.tools.StorageTool format --cluster-id "${CLUSTER_ID:?CLUSTER_ID is required}" --config "$conf"
fi
exec "${java[@]}" kafka.Kafka "$conf"
