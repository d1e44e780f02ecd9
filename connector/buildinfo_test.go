package connector

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestBuildInfo: paysession_build_info is 1 with the build's labels.
func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewBuildInfo("1.4.2", "0123abc"))
	want := `# HELP paysession_build_info The running build: always 1, labelled with version, revision and go_version.
# TYPE paysession_build_info gauge
paysession_build_info{go_version="` + runtime.Version() + `",revision="0123abc",version="1.4.2"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "paysession_build_info"); err != nil {
		t.Error(err)
	}
}
