package helm_test

import (
	"bytes"
	"os/exec"
	"testing"
)

// helmFails runs helm with args and returns its combined output and error,
// for the renders that must fail.
func helmFails(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helm(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
