package tracing

import (
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
