// Package consumers checks the outcome topics with clients no one here wrote: a Python consumer
// (confluent-kafka + fastavro, read_committed, registry or single-object decoding) and kcat. The
// tests run against the real broker and a real Apicurio Registry from integration/harness.
//
// It sits at the far end of the data path, where the ledger and notification teams read.
package consumers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

// Dir returns the folder of this package (scripts and requirements.txt).
func Dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("consumers: cannot locate the package folder")
	}
	return filepath.Dir(file)
}

// Python returns the interpreter of a virtualenv under <repo root>/.cache/pyvenv that has the
// packages of requirements.txt (from PyPI), creating or refreshing it when requirements.txt
// changed. Concurrent test binaries serialize on a file lock. Skipped in -short mode or when no
// python3 with the venv module is installed.
func Python(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a Python virtualenv: skipped in -short mode")
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	reqs := filepath.Join(Dir(t), "requirements.txt")
	want := hashFile(t, reqs)
	venv := filepath.Join(root, ".cache", "pyvenv")
	python := filepath.Join(venv, "bin", "python")
	stamp := filepath.Join(venv, ".requirements-sha256")
	if current(stamp, want) {
		return python
	}
	if err := os.MkdirAll(filepath.Dir(venv), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock := lock(t, venv+".lock")
	defer unlock()
	if current(stamp, want) {
		return python
	}
	sys, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	run(t, sys, "-m", "venv", venv)
	run(t, python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", reqs)
	if err := os.WriteFile(stamp, []byte(want+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return python
}

func current(stamp, want string) bool {
	got, err := os.ReadFile(stamp)
	return err == nil && string(bytes.TrimSpace(got)) == want
}

func hashFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

func lock(t testing.TB, path string) func() {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
