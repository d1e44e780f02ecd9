package harness

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DefaultApicurioVersion is the Apicurio Registry release the harness runs. The 3.0 line runs on
// Java 17 (the machine's JDK); 3.1 and later need Java 21. Override with $APICURIO_VERSION.
const DefaultApicurioVersion = "3.0.9"

// apicurioArtifact is the Maven coordinate of the registry's runnable distribution.
const apicurioArtifact = "io.apicurio:apicurio-registry-app:%s:tar.gz:all"

// RegistryCacheDir returns the folder of fetched registry distributions: $APICURIO_CACHE_DIR when
// set, otherwise <repo root>/.cache/apicurio (ignored by git).
func RegistryCacheDir() (string, error) {
	if d := os.Getenv("APICURIO_CACHE_DIR"); d != "" {
		return filepath.Abs(d)
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "apicurio"), nil
}

// EnsureRegistryApp returns the runnable jar of Apicurio Registry version, fetching the
// distribution from Maven Central with mvn and unpacking it the first time. Concurrent callers
// fetch once: a file lock serializes them and the folder appears whole by rename.
func EnsureRegistryApp(ctx context.Context, version string, logger *slog.Logger) (string, error) {
	cache, err := RegistryCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, version)
	if jar, err := findRunner(dir); err == nil {
		return jar, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("apicurio %s: %w", version, err)
	}
	unlock, err := lockFile(filepath.Join(cache, "fetch.lock"))
	if err != nil {
		return "", fmt.Errorf("apicurio %s: %w", version, err)
	}
	defer unlock()
	if jar, err := findRunner(dir); err == nil { // fetched by another process meanwhile
		return jar, nil
	}
	logger.Info("fetching apicurio registry with maven", slog.String("version", version), slog.String("into", dir))
	if err := fetchRegistry(ctx, version, dir); err != nil {
		return "", fmt.Errorf("apicurio %s: %w", version, err)
	}
	return findRunner(dir)
}

func fetchRegistry(ctx context.Context, version, dir string) error {
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return errors.New("mvn not found on PATH: install Maven to fetch Apicurio Registry, or set " + RegistryURLEnv)
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	archive := filepath.Join(tmp, "app.tar.gz")
	// Plugin 2.8's get goal copies the artifact to dest without resolving the parent pom (which
	// the registry's distribution does not publish for every release).
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "org.apache.maven.plugins:maven-dependency-plugin:2.8:get",
		"-Dartifact="+fmt.Sprintf(apicurioArtifact, version), "-Dtransitive=false", "-Ddest="+archive)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mvn dependency:get: %w\n%s", err, tail(out, 30))
	}
	if err := untarGz(archive, tmp); err != nil {
		return fmt.Errorf("unpack %s: %w", archive, err)
	}
	if err := os.Remove(archive); err != nil {
		return err
	}
	if _, err := findRunner(tmp); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// findRunner returns the jar that starts the registry in dir: the uber runner jar of 3.0
// (*-runner.jar) or Quarkus' fast-jar launcher (quarkus-run.jar) of later releases.
func findRunner(dir string) (string, error) {
	if m, _ := filepath.Glob(filepath.Join(dir, "*-runner.jar")); len(m) > 0 {
		return m[0], nil
	}
	if p := filepath.Join(dir, "quarkus-run.jar"); fileExists(p) {
		return p, nil
	}
	return "", fmt.Errorf("no registry runner jar in %s", dir)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// untarGz unpacks the regular files and folders of a .tar.gz into dir, refusing paths that
// would leave it.
func untarGz(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.Clean("/"+h.Name))
		if !strings.HasPrefix(target, filepath.Clean(dir)+string(os.PathSeparator)) {
			return fmt.Errorf("entry %q leaves the target folder", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeFile(target, tr, os.FileMode(h.Mode).Perm())
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(path string, r io.Reader, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
