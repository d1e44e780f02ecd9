// Package startup tests what the connector checks before and while it runs,
// against the real broker: every configured topic exists and is set up as
// the connector needs it, /readyz fails naming a topic it cannot write and
// recovers by itself, and the partner API's reachability is a metric, not
// readiness (issue 13, items 2 and 10).
package startup_test

import (
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
