# Targets of the downstream examples (integration/examples), included by the Makefile.
#
# The examples themselves (the Go ledger module, Java, Python, connector produce/tail and the
# AsyncAPI parser) run as the Go test integration/examples.TestExamples and
# TestAsyncAPIDocumentIsValid, so `go test ./...` in `make test` runs them. What `go test ./...`
# cannot see is the ledger's own Go module (integration/examples/ledger-go, its own go.mod):
# examples-check gives it the static checks `check` gives the main module.

EXAMPLES_LEDGER_DIR := integration/examples/ledger-go

.PHONY: examples examples-check

examples: ## the downstream examples (Go module, Java, Python, produce/tail, AsyncAPI) on a local broker
	@$(with_kafka) \
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(GO_TEST_FLAGS) ./integration/examples/

examples-check: ## gofmt, go vet and go mod tidy of the example ledger's own Go module
	@echo "check: $(EXAMPLES_LEDGER_DIR): gofmt"; \
	unformatted=$$(gofmt -l $(EXAMPLES_LEDGER_DIR)); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	@echo "check: $(EXAMPLES_LEDGER_DIR): go vet"; cd $(EXAMPLES_LEDGER_DIR) && $(GO) vet ./...
	@if [ "$(CHECK_TIDY)" = 1 ]; then echo "check: $(EXAMPLES_LEDGER_DIR): go mod tidy -diff"; \
	cd $(EXAMPLES_LEDGER_DIR) && $(GO) mod tidy -diff; fi
