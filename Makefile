# paysession: the front door. `make help` lists the targets; CI runs `make test` (.ci/run).
#
# Variables (override on the command line, e.g. `make test GO_PACKAGES=./integration/...`):
#   GO_PACKAGES     packages to check, test and fuzz (default ./...)
#   GO_TEST_FLAGS   extra flags for go test (e.g. -v, -run=Broker)
#   FUZZTIME        time per fuzz target for `make fuzz` (default 60s)
#   CHECK_TIDY      1 (default): check fails when go mod tidy would change go.mod/go.sum; 0 skips that
#   KAFKA_BROKERS   an existing cluster to test against; when unset a local broker is started
#   BIN_DIR         where `make build` puts the binaries (default bin)
#   KAFKA_BACKEND   process (default): that local broker is a java process; container: a one-node
#                   broker in a container (needs Docker; CHAOS_KAFKA_IMAGE as for make chaos)

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

GO                  ?= go
GO_PACKAGES         ?= ./...
GO_TEST_FLAGS       ?=
TEST_TIMEOUT        ?= 20m
CHECK_TIDY          ?= 1
FUZZTIME            ?= 60s
FUZZTIME_SHORT      ?= 5s
INTEGRATION_PACKAGES ?= ./integration/...
BIN_DIR             ?= bin
STATICCHECK_VERSION := v0.8.2
GOVULNCHECK_VERSION := v1.1.4
VULNDB              ?=
# staticcheck's default checks, less ST1005 (our errors start with the field or variable they name,
# e.g. "BaseURL: required") and S1016 (wire and domain types are kept apart on purpose: an explicit
# literal keeps compiling when one side gains a field).
STATICCHECK_CHECKS  := all,-ST1000,-ST1003,-ST1016,-ST1020,-ST1021,-ST1022,-ST1005,-S1016
KAFKAD              := $(GO) run ./integration/harness/kafkad
KAFKACTR            := $(GO) run ./integration/harness/cluster/kafkactr
KAFKA_BACKEND       ?= process

# with_kafka runs the rest of a recipe line with KAFKA_BROKERS set: the caller's cluster when given,
# else a broker already started by make kafka-up (left running), else a local broker started here
# and stopped on every exit path, also on failure, Ctrl-C or TERM (and, through kafkad's watcher,
# even when this shell is killed outright). With KAFKA_BACKEND=container that local broker is a
# one-node broker in a container (kafkactr; removed on exit). It prints the backend it used.
define with_kafka
if [ -z "$${KAFKA_BROKERS:-}" ] && [ "$(KAFKA_BACKEND)" = container ]; then \
  export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 DOCKER_BUILDKIT=0; \
  [ -n "$${CHAOS_KAFKA_IMAGE:-}" ] || $(GO) run ./integration/harness/cluster/kafkaimage; \
  trap '$(KAFKACTR) down' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM; \
  KAFKA_BROKERS=$$($(KAFKACTR) up | tail -1); \
  echo "kafka: backend container (one node in Docker, image $${CHAOS_KAFKA_IMAGE:-local})"; \
elif [ -z "$${KAFKA_BROKERS:-}" ] && KAFKA_BROKERS=$$($(KAFKAD) addr 2>/dev/null); then \
  echo "kafka: backend process, the broker of make kafka-up"; \
elif [ -z "$${KAFKA_BROKERS:-}" ]; then \
  trap '$(KAFKAD) down' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM; \
  KAFKA_BROKERS=$$($(KAFKAD) up -owner $$$$); \
  echo "kafka: backend process (a local broker)"; \
else \
  echo "kafka: backend external (KAFKA_BROKERS given)"; \
fi; \
export KAFKA_BROKERS; echo "kafka: KAFKA_BROKERS=$$KAFKA_BROKERS";
endef

# gofmt_check fails listing the files in GO_PACKAGES' directories that gofmt would change.
define gofmt_check
unformatted=$$(for dir in $$($(GO) list -e -f '{{.Dir}}' $(GO_PACKAGES)); do gofmt -l $$dir/*.go; done | sed "s|^$(CURDIR)/||"); \
if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
endef

# fuzz_all runs every Fuzz* function of GO_PACKAGES for $(1) each (go test -fuzz takes one target
# of one package at a time).
define fuzz_all
n=0; \
for dir in $$($(GO) list -f '{{.Dir}}' $(GO_PACKAGES)); do \
  grep -qs '^func Fuzz' $$dir/*_test.go || continue; \
  for fn in $$(cd $$dir && $(GO) test -list '^Fuzz' . | grep '^Fuzz' || true); do \
    echo "fuzz: $${dir#$(CURDIR)/} $$fn for $(1)"; n=$$((n+1)); \
    for try in 1 2 3; do \
      rc=0; out=$$(cd $$dir && $(GO) test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$(1) . 2>&1) || rc=$$?; \
      echo "$$out"; \
      [ $$rc = 0 ] && break; \
      if [ $$try -lt 3 ] && grep -q 'context deadline exceeded' <<<"$$out" && ! grep -q 'Failing input written to' <<<"$$out"; then \
        echo "fuzz: $$fn: the Go fuzz coordinator misreported the end of -fuzztime as a failure (golang/go#75804, fixed in Go 1.27); no input failed and none was written: fuzzing it again"; \
        continue; \
      fi; \
      exit $$rc; \
    done; \
  done; \
done; \
echo "fuzz: $$n targets fuzzed for $(1) each"
endef

.PHONY: help build test test-with-kafka test-libcrypto check unit integration faults chaos chaos-smoke fuzz fuzz-short bench bench-scale demo vulncheck lint kafka-up kafka-down kafka-status clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-13s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# build stamps the version (git describe) and revision (the commit, -dirty for a modified tree) that
# `connector --version` prints, as the image build does; BIN_DIR is where the binaries go.
build: ## build bin/connector and bin/paysim (whichever mains exist under cmd/), version-stamped
	@mains=$$($(GO) list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./cmd/... 2>/dev/null || true); \
	if [ -z "$$mains" ]; then echo "build: no main package under cmd/ yet"; exit 0; fi; \
	version=$$(git describe --tags --always --dirty 2>/dev/null || echo dev); \
	revision=$$(git rev-parse HEAD 2>/dev/null || true)$$(git diff --quiet HEAD 2>/dev/null || echo -dirty); \
	mkdir -p $(BIN_DIR); $(GO) build -ldflags "-X main.version=$$version -X main.revision=$$revision" -o $(BIN_DIR)/ $$mains; ls $(BIN_DIR)

test: ## everything: check, unit + integration tests on a local broker, short fuzz, chaos smoke; prints wall time
	@start=$$(date +%s); \
	trap 'rc=$$?; echo "make test: $$( [ $$rc = 0 ] && echo passed || echo FAILED ) (exit $$rc), wall time $$(( $$(date +%s) - start ))s"' EXIT; \
	$(MAKE) check; \
	$(MAKE) test-with-kafka; \
	$(MAKE) test-libcrypto; \
	$(MAKE) fuzz-short; \
	$(MAKE) chaos-smoke

# test-libcrypto (used by test) runs the signing, API client and sandbox tests again with the
# libcrypto signer (cgo, -tags libcrypto): the openssl interop and golden tests pass with both.
test-libcrypto:
	CGO_ENABLED=1 $(GO) test -count=1 -shuffle=on -tags libcrypto ./internal/signing/... ./internal/payapi/... ./internal/paysim/...

# test-with-kafka (used by test) runs all GO_PACKAGES, unit and integration tests, in one go test.
test-with-kafka:
	@$(with_kafka) \
	$(GO) test -count=1 -shuffle=on -timeout $(TEST_TIMEOUT) $(GO_TEST_FLAGS) $(GO_PACKAGES)

check: ## static checks: gofmt, go vet, go mod tidy would change nothing
	@echo "check: gofmt"; $(gofmt_check)
	@echo "check: go vet"; $(GO) vet $(GO_PACKAGES)
	@echo "check: go vet -tags libcrypto"; CGO_ENABLED=1 $(GO) vet -tags libcrypto ./internal/signing/...
	@if [ "$(CHECK_TIDY)" = 1 ]; then echo "check: go mod tidy -diff"; $(GO) mod tidy -diff; fi

unit: ## unit tests only (-short: tests that need a broker skip)
	$(GO) test -count=1 -short -shuffle=on $(GO_TEST_FLAGS) $(GO_PACKAGES)

integration: ## integration tests (INTEGRATION_PACKAGES) against a local broker
	@$(with_kafka) \
	$(GO) test -count=1 -shuffle=on -timeout $(TEST_TIMEOUT) $(GO_TEST_FLAGS) $(INTEGRATION_PACKAGES)

faults: ## fault scenarios at full size (FAULTS_SCALE=full) on a local broker: table + .cache/faults.json
	@$(with_kafka) \
	FAULTS_SCALE=full $(GO) test -count=1 -v -timeout 40m $(GO_TEST_FLAGS) ./integration/faults/

chaos: ## chaos scenarios on a 3-broker cluster in containers (not in test; starts dockerd if needed): table + .cache/chaos.json
	@GO=$(GO) integration/harness/cluster/chaos.sh $(GO_TEST_FLAGS)

chaos-smoke: ## one chaos fault (c2) on a 3-broker cluster; part of test: installs/starts Docker, skips loudly without it
	@CHAOS_SMOKE=1 GO=$(GO) integration/harness/cluster/chaos.sh $(GO_TEST_FLAGS)

fuzz-short: ## every Fuzz* target for FUZZTIME_SHORT (5s) each
	@$(call fuzz_all,$(FUZZTIME_SHORT))

fuzz: ## every Fuzz* target for FUZZTIME (60s) each
	@$(call fuzz_all,$(FUZZTIME))

bench: ## end-to-end benchmark (broker, sandbox, connector): table + .cache/bench.json; BENCH_FLAGS=-h lists knobs
	$(GO) run ./integration/bench -out .cache/bench.json $(BENCH_FLAGS)

bench-scale: ## session writer takeover vs sessions partition size (not in test): table + .cache/bench-scale.json; BENCH_SCALE_FLAGS=-h lists knobs
	$(GO) run ./integration/bench/scale -out .cache/bench-scale.json $(BENCH_SCALE_FLAGS)

demo: ## the whole system in one process: in-process Kafka, sandbox, connector, sample producer
	$(GO) run ./cmd/connector demo

vulncheck: ## known vulnerabilities reachable from the code (govulncheck, pinned; VULNDB=URL for a mirror); exit 3 when the database is not reachable
	@rc=0; out=$$($(GO) run golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION) $(if $(VULNDB),-db $(VULNDB)) $(GO_PACKAGES) 2>&1) || rc=$$?; \
	if [ $$rc -ne 0 ] && grep -q "fetching vulnerabilities" <<<"$$out"; then \
	  grep "fetching vulnerabilities" <<<"$$out"; \
	  echo "vulncheck: the vulnerability database is not reachable from this machine: NOTHING WAS CHECKED (set VULNDB to a reachable mirror)"; \
	  exit 3; \
	fi; \
	echo "$$out"; exit $$rc

lint: ## gofmt, go vet and staticcheck (pinned)
	@$(gofmt_check)
	$(GO) vet $(GO_PACKAGES)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -checks '$(STATICCHECK_CHECKS)' $(GO_PACKAGES)

kafka-up: ## start the local broker detached (fetches the jars once); prints its bootstrap address
	@$(KAFKAD) up

kafka-down: ## stop the local broker and its whole process group
	@$(KAFKAD) down

kafka-status: ## show whether the local broker runs, its address and log
	@$(KAFKAD) status

clean: kafka-down ## stop the broker and remove build outputs (the jar cache in .cache/ stays)
	rm -rf bin out

include integration/examples/examples.mk
check: examples-check
