package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersion: --version (and its spellings) print the linked version, a
// revision and the Go version, and exit 0.
func TestVersion(t *testing.T) {
	defer func(v, r string) { version, revision = v, r }(version, revision)
	version, revision = "1.4.2", "0123abc"
	for _, arg := range []string{"--version", "-version", "version"} {
		t.Run(arg, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{arg}, func(string) string { return "" }, &out, &errOut); code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if !regexp.MustCompile(`^connector 1\.4\.2 \(revision 0123abc, go1\.\d+`).MatchString(out.String()) {
				t.Errorf("printed %q", out.String())
			}
		})
	}
}

// TestDockerfileLinksVersion builds the binary with the -X flags of the
// Dockerfile (its build arguments substituted) and runs --version: the
// linker ignores -X of a variable that does not exist, so only the printed
// values show the flags set real variables.
func TestDockerfileLinksVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dockerfile, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	flags := regexp.MustCompile(`-X (main\.\w+)=\$\{(\w+)\}`).FindAllStringSubmatch(string(dockerfile), -1)
	if len(flags) != 2 {
		t.Fatalf("Dockerfile has %d -X main.<var>=${ARG} flags, want 2 (version, revision)", len(flags))
	}
	args := map[string]string{"VERSION": "7.7.7-test", "REVISION": "feedface"}
	var ldflags []string
	for _, f := range flags {
		ldflags = append(ldflags, "-X", f[1]+"="+args[f[2]])
	}
	bin := filepath.Join(t.TempDir(), "connector")
	if out, err := exec.Command("go", "build", "-ldflags", strings.Join(ldflags, " "), "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "connector 7.7.7-test (revision feedface, go") {
		t.Errorf("--version printed %q", out)
	}
}

// TestMakeBuildStampsVersion runs `make build` and --version of the binary
// it made: the version is git describe's and the revision the commit's,
// not "dev (revision unknown)" (what make build gave before, with the
// toolchain's VCS stamping off: GOFLAGS=-buildvcs=false).
func TestMakeBuildStampsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	dir := t.TempDir()
	make := exec.Command("make", "-C", "../..", "build", "BIN_DIR="+dir)
	if out, err := make.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(dir, "connector"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "(revision " + strings.TrimSpace(string(head))
	if strings.HasPrefix(string(out), "connector dev ") || !strings.Contains(string(out), want) {
		t.Errorf("--version of make build's binary printed %q, want a version and %q", out, want)
	}
}
