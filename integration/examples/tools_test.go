package examples

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness"
)

// root returns the repository root.
func root(t testing.TB) string {
	t.Helper()
	r, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cache returns <repo root>/.cache/examples/<name>'s parent, created.
func cacheDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(root(t), ".cache", "examples")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// need returns the path of tool, failing t when it is not installed: the
// examples are part of make test, so a missing tool is a failure, not a skip.
func need(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Fatalf("%s is not installed: the examples need it (see README, Prerequisites)", tool)
	}
	return p
}

// hashFiles returns the SHA-256 of the files' contents, in order.
func hashFiles(t testing.TB, files ...string) string {
	t.Helper()
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cached returns dir, filling it with fill the first time and again whenever
// stamp changes. fill writes into a temporary folder that replaces dir whole;
// concurrent test binaries serialize on a file lock.
func cached(t testing.TB, dir, stamp string, fill func(tmp string)) string {
	t.Helper()
	stampFile := filepath.Join(dir, ".stamp")
	current := func() bool {
		b, err := os.ReadFile(stampFile)
		return err == nil && strings.TrimSpace(string(b)) == stamp
	}
	if current() {
		return dir
	}
	unlock := lock(t, dir+".lock")
	defer unlock()
	if current() {
		return dir
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	fill(tmp)
	if err := os.WriteFile(filepath.Join(tmp, ".stamp"), []byte(stamp+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	return dir
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

// command describes one process the examples run.
type command struct {
	name  string
	args  []string
	dir   string
	env   map[string]string // added to the test's environment
	stdin string
	limit time.Duration // default 3 minutes
}

// run runs c and returns its stdout, failing t with both outputs when it
// does not exit 0.
func run(t testing.TB, c command) string {
	t.Helper()
	out, errOut, err := start(c)
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(c.name), strings.Join(c.args, " "), err, out, errOut)
	}
	return out
}

func start(c command) (string, string, error) {
	if c.limit == 0 {
		c.limit = 3 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.name, c.args...)
	cmd.Dir = c.dir
	cmd.Env = os.Environ()
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if c.stdin != "" {
		cmd.Stdin = strings.NewReader(c.stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// python returns the interpreter of a virtualenv with python/requirements.txt.
func python(t testing.TB) string {
	t.Helper()
	sys := need(t, "python3")
	reqs := filepath.Join(root(t), "integration", "examples", "python", "requirements.txt")
	venv := cached(t, filepath.Join(cacheDir(t), "pyvenv"), hashFiles(t, reqs), func(tmp string) {
		run(t, command{name: sys, args: []string{"-m", "venv", tmp}})
		run(t, command{name: filepath.Join(tmp, "bin", "python"), args: []string{"-m", "pip", "install", "-q",
			"--disable-pip-version-check", "-r", reqs}, limit: 5 * time.Minute})
	})
	// The venv is made in a temporary folder and renamed: its interpreter
	// finds pyvenv.cfg beside itself, so it runs from the new place (only
	// the scripts' shebangs, unused here, name the old one).
	return filepath.Join(venv, "bin", "python")
}

// javaLibs returns a folder with the jars of java/pom.xml, fetched with Maven.
func javaLibs(t testing.TB) string {
	t.Helper()
	mvn := need(t, "mvn")
	need(t, "java")
	dir := filepath.Join(root(t), "integration", "examples", "java")
	pom := filepath.Join(dir, "pom.xml")
	return cached(t, filepath.Join(cacheDir(t), "java-libs"), hashFiles(t, pom), func(tmp string) {
		run(t, command{name: mvn, args: []string{"-q", "-B", "-f", pom, "dependency:copy-dependencies",
			"-DincludeScope=runtime", "-DoutputDirectory=" + tmp}, limit: 10 * time.Minute})
	})
}

// asyncAPIValidator returns a folder with validate.mjs and the node modules
// of asyncapi/package-lock.json (npm ci).
func asyncAPIValidator(t testing.TB) string {
	t.Helper()
	npm := need(t, "npm")
	need(t, "node")
	src := filepath.Join(root(t), "integration", "examples", "asyncapi")
	files := []string{"package.json", "package-lock.json", "validate.mjs"}
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join(src, f))
	}
	return cached(t, filepath.Join(cacheDir(t), "asyncapi"), hashFiles(t, paths...), func(tmp string) {
		for _, f := range files {
			copyFile(t, filepath.Join(src, f), filepath.Join(tmp, f))
		}
		run(t, command{name: npm, args: []string{"ci", "--no-audit", "--no-fund", "--ignore-scripts"}, dir: tmp,
			limit: 5 * time.Minute})
	})
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// connectorBinary builds cmd/connector for produce and tail.
func connectorBinary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "connector")
	run(t, command{name: need(t, "go"), args: []string{"build", "-o", bin, "./cmd/connector"}, dir: root(t), limit: 5 * time.Minute})
	return bin
}
