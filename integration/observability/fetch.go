package observability

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/paysession/paysession/integration/harness"
)

// debPackage is Debian's package that holds the prometheus and promtool
// binaries (statically linked Go programs but for libc).
const debPackage = "prometheus"

// BinDirEnv names a folder that already holds prometheus and promtool; when
// set nothing is fetched.
const BinDirEnv = "PROMETHEUS_BIN_DIR"

// Binaries are the paths of the two Prometheus programs the tests run.
type Binaries struct {
	Prometheus string
	Promtool   string
	// Version is the Debian package version they came from ("" with
	// PROMETHEUS_BIN_DIR).
	Version string
}

// CacheDir returns the folder of the fetched package: <repo root>/.cache/prometheus.
func CacheDir() (string, error) {
	root, err := harness.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "prometheus"), nil
}

// EnsurePrometheus returns the Prometheus binaries, fetching Debian's
// package the first time: apt-get download (no installation, no root
// needed), dpkg-deb -x, and the two binaries kept in <CacheDir>/bin (about
// 100 MB; the 19 MB package is not kept). Concurrent callers fetch once: a
// file lock serializes them and the folder appears whole by rename.
func EnsurePrometheus(ctx context.Context, logger *slog.Logger) (Binaries, error) {
	if d := os.Getenv(BinDirEnv); d != "" {
		b := Binaries{Prometheus: filepath.Join(d, "prometheus"), Promtool: filepath.Join(d, "promtool")}
		return b, b.check()
	}
	cache, err := CacheDir()
	if err != nil {
		return Binaries{}, err
	}
	bin := filepath.Join(cache, "bin")
	if b, err := cached(bin); err == nil {
		return b, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Binaries{}, fmt.Errorf("prometheus: %w", err)
	}
	unlock, err := lockFile(filepath.Join(cache, "fetch.lock"))
	if err != nil {
		return Binaries{}, fmt.Errorf("prometheus: %w", err)
	}
	defer unlock()
	if b, err := cached(bin); err == nil { // fetched by another process meanwhile
		return b, nil
	}
	logger.Info("fetching debian's prometheus package", slog.String("into", bin))
	if err := fetch(ctx, bin); err != nil {
		return Binaries{}, fmt.Errorf("prometheus: %w", err)
	}
	return cached(bin)
}

// versionFile, beside the binaries, names the package version they came from.
const versionFile = "VERSION"

func cached(bin string) (Binaries, error) {
	v, err := os.ReadFile(filepath.Join(bin, versionFile))
	if err != nil {
		return Binaries{}, err
	}
	b := Binaries{Prometheus: filepath.Join(bin, "prometheus"), Promtool: filepath.Join(bin, "promtool"),
		Version: strings.TrimSpace(string(v))}
	return b, b.check()
}

func (b Binaries) check() error {
	for _, p := range []string{b.Prometheus, b.Promtool} {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if st.Mode()&0o111 == 0 {
			return fmt.Errorf("%s is not executable", p)
		}
	}
	return nil
}

// fetch downloads the package into a temporary folder, unpacks it and moves
// the two binaries into bin. An apt-get that does not know the package yet
// (no package lists on a new machine) updates its lists once and tries again.
func fetch(ctx context.Context, bin string) error {
	for _, tool := range []string{"apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found: the Prometheus tests need Debian's package tools, or set %s", tool, BinDirEnv)
		}
	}
	tmp := bin + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	download := func() ([]byte, error) {
		cmd := exec.CommandContext(ctx, "apt-get", "download", "-q", debPackage)
		cmd.Dir = tmp
		return cmd.CombinedOutput()
	}
	out, err := download()
	if err != nil {
		upd := exec.CommandContext(ctx, "apt-get", "update", "-q")
		if uout, uerr := upd.CombinedOutput(); uerr != nil {
			return fmt.Errorf("apt-get download %s: %w\n%s\napt-get update: %v\n%s", debPackage, err, out, uerr, tail(uout))
		}
		if out, err = download(); err != nil {
			return fmt.Errorf("apt-get download %s: %w\n%s", debPackage, err, out)
		}
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, debPackage+"_*.deb"))
	if len(debs) != 1 {
		return fmt.Errorf("apt-get download %s left %d packages", debPackage, len(debs))
	}
	unpacked := filepath.Join(tmp, "root")
	if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", debs[0], unpacked).CombinedOutput(); err != nil {
		return fmt.Errorf("dpkg-deb -x: %w\n%s", err, out)
	}
	staged := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(staged, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"prometheus", "promtool"} {
		if err := os.Rename(filepath.Join(unpacked, "usr", "bin", name), filepath.Join(staged, name)); err != nil {
			return fmt.Errorf("package %s: %w", filepath.Base(debs[0]), err)
		}
	}
	version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(debs[0]), debPackage+"_"), ".deb")
	if err := os.WriteFile(filepath.Join(staged, versionFile), []byte(version+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(bin); err != nil {
		return err
	}
	return os.Rename(staged, bin)
}

// lockFile takes an exclusive advisory lock on path, blocking until it is free.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, errors.Join(fmt.Errorf("lock %s", path), err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// tail returns the last lines of b.
func tail(b []byte) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
