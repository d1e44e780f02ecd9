package examples

import (
	"os"
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

func TestMain(m *testing.M) {
	code := m.Run()
	harness.StopRegistry()
	harness.Shutdown()
	os.Exit(code)
}
