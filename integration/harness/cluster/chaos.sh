#!/usr/bin/env bash
# make chaos: the chaos suite on a 3-node Kafka cluster in containers (integration/faults TestChaos,
# after the cluster harness's own fault test). It installs what is missing (docker.io, iptables,
# debootstrap, as root with apt-get), starts dockerd in the background when no daemon answers (and
# stops it at the end), builds the local Kafka image once (cached; CHAOS_KAFKA_IMAGE names another,
# e.g. apache/kafka:4.1.1, pulled if absent), runs the scenarios and prints their table (also
# written to .cache/chaos.json). On every exit path it removes the containers, networks, volumes
# and images that its own test binaries labelled (io.paysession.chaos.session=<this run's id>,
# CHAOS_SESSION), also those a killed test binary left, and nothing of another run sharing the
# Docker daemon.
#
# Usage: integration/harness/cluster/chaos.sh [go test flags...]   (from the repository root)
#
# CHAOS_SMOKE=1 (make chaos-smoke, part of make test) runs one fault only: c2, the transaction
# coordinator SIGKILLed with a transaction open, on a short flow (150 payouts over 20 s), table in
# .cache/chaos-smoke.json. Where Docker cannot be made available (not root, no apt-get, the
# install or dockerd fails) it skips with a banner naming why instead of failing; a failing
# scenario fails it.
set -euo pipefail
GO=${GO:-go}
# This run's session: the label of everything its test binaries create (integration/harness/cluster).
CHAOS_SESSION=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
export CHAOS_SESSION
label=io.paysession.chaos.session=$CHAOS_SESSION
smoke=${CHAOS_SMOKE:-0}
mkdir -p .cache/chaos

# unavailable ends the run when Docker cannot be made available: an error, or for the smoke a
# loud skip (exit 0) naming why.
unavailable() {
  if [ "$smoke" = 1 ]; then
    {
      echo "################################################################################"
      echo "chaos smoke SKIPPED: $*"
      echo "(make test ran without the one-fault chaos smoke; make chaos needs Docker too)"
      echo "################################################################################"
    } >&2
    exit 0
  fi
  echo "chaos: $*" >&2
  exit 2
}

# What is missing: a daemon (dockerd and iptables) unless one answers already (Docker Desktop),
# and debootstrap for the local image unless CHAOS_KAFKA_IMAGE names another.
missing=()
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v iptables >/dev/null || missing+=(iptables)
fi
[ -n "${CHAOS_KAFKA_IMAGE:-}" ] || command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    unavailable "missing ${missing[*]}: start Docker (and set CHAOS_KAFKA_IMAGE=apache/kafka:4.1.1 without debootstrap), or run as root on Debian"
  fi
  echo "chaos: installing ${missing[*]}"
  apt-get install -y --no-install-recommends "${missing[@]}" >.cache/chaos/apt.log 2>&1 ||
    { apt-get update >>.cache/chaos/apt.log 2>&1 &&
      apt-get install -y --no-install-recommends "${missing[@]}" >>.cache/chaos/apt.log 2>&1; } ||
    unavailable "apt-get install ${missing[*]} failed: $(tail -3 .cache/chaos/apt.log | tr '\n' ' ')"
fi

dockerd_pid=
cleanup() {
  rc=$?
  if docker info >/dev/null 2>&1; then
    ids=$(docker ps -aq --filter "label=$label")
    [ -z "$ids" ] || { echo "chaos: removing leftover containers"; docker rm -f -v $ids >/dev/null; }
    ids=$(docker network ls -q --filter "label=$label")
    [ -z "$ids" ] || { echo "chaos: removing leftover networks"; docker network rm $ids >/dev/null; }
    ids=$(docker volume ls -q --filter "label=$label")
    [ -z "$ids" ] || { echo "chaos: removing leftover volumes"; docker volume rm -f $ids >/dev/null; }
    ids=$(docker image ls -q --filter "label=$label")
    [ -z "$ids" ] || docker image rm -f $ids >/dev/null # the scratch image of the connector replica
  fi
  if [ -n "$dockerd_pid" ]; then
    echo "chaos: stopping the dockerd this run started (pid $dockerd_pid)"
    kill "$dockerd_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.2; done
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! docker info >/dev/null 2>&1; then
  echo "chaos: starting dockerd (log .cache/chaos/dockerd.log)"
  dockerd --storage-driver=overlay2 --ip-forward=false >.cache/chaos/dockerd.log 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 150); do docker info >/dev/null 2>&1 && break; sleep 0.2; done
  docker info >/dev/null 2>&1 ||
    unavailable "dockerd did not start (.cache/chaos/dockerd.log): $(tail -3 .cache/chaos/dockerd.log | tr '\n' ' ')"
fi

# testcontainers-go must stay on this machine: the suite refuses to start without these.
export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 CHAOS=1
export DOCKER_BUILDKIT=0 # the docker CLI first on PATH may lack buildx

if [ -n "${CHAOS_KAFKA_IMAGE:-}" ]; then
  docker image inspect "$CHAOS_KAFKA_IMAGE" >/dev/null 2>&1 || docker pull "$CHAOS_KAFKA_IMAGE"
else
  $GO run ./integration/harness/cluster/kafkaimage
fi

start=$(date +%s)
if [ "$smoke" = 1 ]; then
  CHAOS_COMMANDS=${CHAOS_COMMANDS:-150} CHAOS_FLOW_SECONDS=${CHAOS_FLOW_SECONDS:-20} \
    $GO test -count=1 -v -timeout 10m -run '^TestChaos$/^c2_' ./integration/faults/ \
    -faults.out "$PWD/.cache/chaos-smoke.json" "$@"
  echo "chaos smoke: passed in $(($(date +%s) - start))s"
  exit 0
fi
$GO test -count=1 -v -timeout 15m -run '^TestClusterFaults$' ./integration/harness/cluster/ "$@"
$GO test -count=1 -v -timeout 60m -run '^TestChaos$' ./integration/faults/ -faults.out "$PWD/.cache/chaos.json" "$@"
echo "chaos: passed in $(($(date +%s) - start))s"
