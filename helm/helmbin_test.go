package helm_test

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// helmVersion pins the helm used by the tests. It is built from the Go module
// proxy with `go install helm@version`, outside our go.mod, so helm's
// dependency tree stays out of the module; the binary lands in .cache/bin.
const helmVersion = "v3.21.4"

var (
	helmOnce sync.Once
	helmPath string
	helmErr  error
)

// helm returns the path of the pinned helm binary: $HELM when set, else
// <repo>/.cache/bin/helm when it is the pinned version, else go install into
// <repo>/.cache/bin (about 3.5 minutes on 2 cores the first time).
func helm(t *testing.T) string {
	t.Helper()
	helmOnce.Do(func() {
		if p := os.Getenv("HELM"); p != "" {
			helmPath = p
			return
		}
		root, err := filepath.Abs("..")
		if err != nil {
			helmErr = err
			return
		}
		bin := filepath.Join(root, ".cache", "bin")
		helmPath = filepath.Join(bin, "helm")
		if bi, err := buildinfo.ReadFile(helmPath); err == nil && bi.Main.Version == helmVersion {
			return // already built; go install would spend seconds checking a large graph
		}
		start := time.Now()
		cmd := exec.Command("go", "install", "helm.sh/helm/v3/cmd/helm@"+helmVersion)
		cmd.Env = append(os.Environ(), "GOBIN="+bin, "CGO_ENABLED=0")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			helmErr = err
			helmPath = out.String()
			return
		}
		t.Logf("go install helm %s: %s", helmVersion, time.Since(start).Round(time.Millisecond))
	})
	if helmErr != nil {
		t.Fatalf("go install helm %s: %v\n%s", helmVersion, helmErr, helmPath)
	}
	return helmPath
}

// run runs helm with args in the chart's parent directory and returns stdout.
func run(t *testing.T, args ...string) []byte {
	t.Helper()
	bin := helm(t)
	start := time.Now()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %v: %v\n%s%s", args, err, stdout.String(), stderr.String())
	}
	t.Logf("helm %s: %s", args[0], time.Since(start).Round(time.Millisecond))
	return stdout.Bytes()
}
