// Package pipeline_test runs the command pipeline end to end: a real Kafka
// broker from the harness, the sandbox (internal/paysim) embedded over HTTP,
// the real API client, and records produced and read with plain franz-go
// clients (results read with read_committed).
package pipeline_test

import (
	"os"
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" { // helper process of the crash test
		os.Exit(runChild())
	}
	code := m.Run()
	harness.StopRegistry() // started by the tests that need one
	harness.Shutdown()
	os.Exit(code)
}
