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
// revision, the Go version and the signer engine of this build (go: the
// tests build without -tags libcrypto), and exit 0.
func TestVersion(t *testing.T) {
	defer func(v, r string) { version, revision = v, r }(version, revision)
	version, revision = "1.4.2", "0123abc"
	for _, arg := range []string{"--version", "-version", "version"} {
		t.Run(arg, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{arg}, func(string) string { return "" }, &out, &errOut); code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if !regexp.MustCompile(`^connector 1\.4\.2 \(revision 0123abc, go1\.[\d.]+, signer go\)\n$`).MatchString(out.String()) {
				t.Errorf("printed %q", out.String())
			}
		})
	}
}

// TestDockerfileBuildsTheLibcryptoSigner builds the binary as the
// Dockerfile's build stage does by default: the toolchain stage of its
// default SIGNER (its CGO_ENABLED and GOFLAGS) and its -X flags, the build
// arguments substituted. --version must print those values (the linker
// ignores -X of a variable that does not exist) and the libcrypto signer,
// the faster engine, which the image the chart deploys must have; and the
// build stage must run the signing tests before it builds. Before, the
// default was SIGNER=go.
func TestDockerfileBuildsTheLibcryptoSigner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	raw, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	dockerfile := string(raw)
	signer := regexp.MustCompile(`(?m)^ARG SIGNER=(\w+)$`).FindStringSubmatch(dockerfile)
	if signer == nil || signer[1] != "libcrypto" {
		t.Fatalf("Dockerfile's default SIGNER is %v, want libcrypto", signer)
	}
	stage := regexp.MustCompile(`(?ms)^FROM [^\n]* AS toolchain-` + signer[1] + `\n(.*?)\n\n`).FindStringSubmatch(dockerfile)
	if stage == nil {
		t.Fatalf("Dockerfile has no stage toolchain-%s", signer[1])
	}
	var env []string
	for _, line := range regexp.MustCompile(`(?m)^ENV (.*)$`).FindAllStringSubmatch(stage[1], -1) {
		for _, kv := range regexp.MustCompile(`(\w+)=("[^"]*"|\S+)`).FindAllStringSubmatch(line[1], -1) {
			env = append(env, kv[1]+"="+strings.Trim(kv[2], `"`))
		}
	}
	from := strings.Index(dockerfile, "FROM toolchain-${SIGNER} AS build")
	test := strings.Index(dockerfile, "go test -count=1 ./internal/signing/...")
	if build := strings.Index(dockerfile, "go build -"); from < 0 || test < from || build < test {
		t.Error("the build stage does not run go test ./internal/signing/... before go build")
	}
	flags := regexp.MustCompile(`-X (main\.\w+)=\$\{(\w+)\}`).FindAllStringSubmatch(dockerfile, -1)
	if len(flags) != 2 {
		t.Fatalf("Dockerfile has %d -X main.<var>=${ARG} flags, want 2 (version, revision)", len(flags))
	}
	args := map[string]string{"VERSION": "7.7.7-test", "REVISION": "feedface"}
	var ldflags []string
	for _, f := range flags {
		ldflags = append(ldflags, "-X", f[1]+"="+args[f[2]])
	}
	bin := filepath.Join(t.TempDir(), "connector")
	build := exec.Command("go", "build", "-ldflags", strings.Join(ldflags, " "), "-o", bin, ".")
	build.Env = append(os.Environ(), env...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build with %v: %v\n%s", env, err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^connector 7\.7\.7-test \(revision feedface, go[\d.]+, signer libcrypto\)\n$`).Match(out) {
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
