package harness

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRegistryConfigValidate(t *testing.T) {
	err := RegistryConfig{StartTimeout: -1}.Validate()
	if err == nil || !strings.Contains(err.Error(), "Dir") || !strings.Contains(err.Error(), "StartTimeout") {
		t.Fatalf("Validate = %v, want both problems", err)
	}
	if _, err := StartRegistry(context.Background(), RegistryConfig{}); err == nil {
		t.Fatal("StartRegistry without Dir succeeded")
	}
}

func writeTarGz(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	f.Close()
}

func TestUntarAndFindRunner(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "a.tar.gz")
	writeTarGz(t, archive, map[string]string{"lib/x.jar": "x", "apicurio-registry-app-3.0.9-runner.jar": "r"})
	out := filepath.Join(dir, "out")
	if err := untarGz(archive, out); err != nil {
		t.Fatal(err)
	}
	jar, err := findRunner(out)
	if err != nil || filepath.Base(jar) != "apicurio-registry-app-3.0.9-runner.jar" {
		t.Fatalf("findRunner = %q, %v", jar, err)
	}
	if _, err := findRunner(filepath.Join(out, "lib")); err == nil {
		t.Fatal("findRunner found a jar in a folder without one")
	}
}

func TestUntarRefusesEscapingPaths(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "evil.tar.gz")
	writeTarGz(t, archive, map[string]string{"../../escape": "x"})
	out := filepath.Join(dir, "out")
	_ = untarGz(archive, out)
	if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
		t.Fatal("an entry escaped the target folder")
	}
}

// TestStartRegistry starts Apicurio and checks its Confluent API answers (skipped in -short).
func TestStartRegistry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Apicurio Registry: skipped in -short mode")
	}
	r, err := StartRegistry(context.Background(), RegistryConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(); err != nil {
			t.Error(err)
		}
	})
	if !strings.HasSuffix(r.URL(), "/apis/ccompat/v7") {
		t.Fatalf("URL %s", r.URL())
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}
