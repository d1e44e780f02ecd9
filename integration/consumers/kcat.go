package consumers

import (
	"os"
	"os/exec"
	"testing"
)

// Kcat returns the path of kcat (Debian package kcat), installing it with apt-get when it is
// missing and the test runs as root; otherwise the test is skipped. Skipped in -short mode.
func Kcat(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("kcat tests need a broker: skipped in -short mode")
	}
	if p, err := exec.LookPath("kcat"); err == nil {
		return p
	}
	if os.Geteuid() != 0 {
		t.Skip("kcat not installed and not root: apt-get install kcat")
	}
	install := func() error {
		cmd := exec.Command("apt-get", "install", "-y", "-q", "--no-install-recommends", "kcat")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("apt-get install kcat: %v\n%s", err, out)
		}
		return err
	}
	if install() != nil {
		// The package lists may be missing or stale on a fresh machine.
		if out, err := exec.Command("apt-get", "update", "-q").CombinedOutput(); err != nil {
			t.Fatalf("apt-get update: %v\n%s", err, out)
		}
		if err := install(); err != nil {
			t.Fatalf("apt-get install kcat failed")
		}
	}
	p, err := exec.LookPath("kcat")
	if err != nil {
		t.Fatalf("kcat not on PATH after install: %v", err)
	}
	return p
}
