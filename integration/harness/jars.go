package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// modulePath names this repository's module; RepoRoot looks for the go.mod that declares it.
const modulePath = "github.com/paysession/paysession"

// stampFile, inside the libs folder, holds the hash of the pom.xml the jars were fetched with: a
// changed pom fetches again, an unchanged one reuses the cache.
const stampFile = ".pom-sha256"

// RepoRoot returns the repository root: the nearest directory at or above the working directory
// whose go.mod declares this module. Tests run in their package's directory, so this finds the
// root from any of them.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("repo root: %w", err)
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(mod, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("repo root: no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// CacheDir returns the folder for broker jars and kafkad state: $KAFKA_CACHE_DIR when set,
// otherwise <repo root>/.cache/kafka (ignored by git).
func CacheDir() (string, error) {
	if d := os.Getenv("KAFKA_CACHE_DIR"); d != "" {
		return filepath.Abs(d)
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "kafka"), nil
}

// EnsureJars returns a folder holding the Kafka broker jars, fetching them with Maven the first
// time. $KAFKA_LIBS, when set, names a ready folder and nothing is fetched. Otherwise the jars live
// in <CacheDir>/libs, fetched from integration/kafka/pom.xml and fetched again only when that pom
// changes. Concurrent callers (test binaries run in parallel) fetch once: a file lock serializes
// them and the folder appears whole by rename.
func EnsureJars(ctx context.Context, logger *slog.Logger) (string, error) {
	if d := os.Getenv("KAFKA_LIBS"); d != "" {
		return d, checkJars(d)
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	pom := filepath.Join(root, "integration", "kafka", "pom.xml")
	want, err := fileHash(pom)
	if err != nil {
		return "", fmt.Errorf("kafka jars: %w", err)
	}
	libs := filepath.Join(cache, "libs")
	if jarsCurrent(libs, want) {
		return libs, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("kafka jars: %w", err)
	}
	unlock, err := lockFile(filepath.Join(cache, "fetch.lock"))
	if err != nil {
		return "", fmt.Errorf("kafka jars: %w", err)
	}
	defer unlock()
	if jarsCurrent(libs, want) { // another process fetched while this one waited for the lock
		return libs, nil
	}
	logger.Info("fetching kafka broker jars with maven", slog.String("pom", pom), slog.String("into", libs))
	if err := fetchJars(ctx, pom, libs, want); err != nil {
		return "", fmt.Errorf("kafka jars: %w", err)
	}
	return libs, nil
}

func fetchJars(ctx context.Context, pom, libs, stamp string) error {
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return errors.New("mvn not found on PATH: install Maven (and Java 17+) to fetch the broker jars, or set KAFKA_LIBS")
	}
	tmp := libs + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-f", pom, "dependency:copy-dependencies",
		"-DincludeScope=runtime", "-DoutputDirectory="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mvn copy-dependencies: %w\n%s", err, tail(out, 30))
	}
	if err := checkJars(tmp); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, stampFile), []byte(stamp+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(libs); err != nil {
		return err
	}
	return os.Rename(tmp, libs)
}

func jarsCurrent(libs, want string) bool {
	got, err := os.ReadFile(filepath.Join(libs, stampFile))
	return err == nil && strings.TrimSpace(string(got)) == want && checkJars(libs) == nil
}

func checkJars(libs string) error {
	matches, _ := filepath.Glob(filepath.Join(libs, "kafka_2.13-*.jar"))
	if len(matches) == 0 {
		return fmt.Errorf("no kafka_2.13 jar in %s", libs)
	}
	return nil
}

func fileHash(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// lockFile takes an exclusive advisory lock on path, blocking until it is free.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
