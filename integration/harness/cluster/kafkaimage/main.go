// Command kafkaimage builds the local Kafka image of the chaos cluster once and caches it: make
// chaos runs it before the scenarios. No container registry is needed: the base is a Debian tree
// made by debootstrap (minbase with a Java 17 runtime) and imported into Docker, and the broker
// jars are the ones the harness fetches with Maven (harness.EnsureJars). An image whose content
// label matches the jars and files/ is kept; the base image is kept across jar changes.
//
// Usage: go run ./integration/harness/cluster/kafkaimage [-tag paysession-kafka:4.1.1]
//
// It needs docker (a running daemon) and debootstrap; CHAOS_DEBIAN_MIRROR overrides
// debootstrap's default mirror.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/cluster"
)

// files holds the Dockerfile, the entrypoint and the log configuration of the image.
//
//go:embed files
var files embed.FS

// baseImage is the imported debootstrap tree: Debian bookworm minbase with a Java 17 runtime.
const baseImage = "paysession-jre17-base:bookworm"

// contentLabel carries the hash of what the image was built from.
const contentLabel = "io.paysession.content"

func main() {
	tag := flag.String("tag", cluster.LocalImage, "tag of the image to build")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := build(context.Background(), logger, *tag); err != nil {
		fmt.Fprintln(os.Stderr, "kafkaimage:", err)
		os.Exit(1)
	}
}

func build(ctx context.Context, logger *slog.Logger, tag string) error {
	libs, err := harness.EnsureJars(ctx, logger)
	if err != nil {
		return err
	}
	sum, err := contentHash(libs)
	if err != nil {
		return err
	}
	if have, _ := output(ctx, "docker", "image", "inspect", "-f", `{{index .Config.Labels "`+contentLabel+`"}}`, tag); have == sum {
		logger.Info("kafka image up to date", slog.String("tag", tag))
		return nil
	}
	if err := ensureBase(ctx, logger); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kafkaimage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.CopyFS(filepath.Join(dir, "libs"), os.DirFS(libs)); err != nil {
		return err
	}
	sub, err := fs.Sub(files, "files")
	if err != nil {
		return err
	}
	if err := os.CopyFS(dir, sub); err != nil {
		return err
	}
	if err := os.Chmod(filepath.Join(dir, "entrypoint.sh"), 0o755); err != nil {
		return err
	}
	logger.Info("building kafka image", slog.String("tag", tag))
	cmd := exec.CommandContext(ctx, "docker", "build", "-q", "--build-arg", "BASE="+baseImage,
		"--label", contentLabel+"="+sum, "-t", tag, dir)
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0") // the docker CLI may lack buildx
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("docker build: %w\n%s", err, out)
	}
	logger.Info("kafka image built", slog.String("tag", tag))
	return nil
}

// ensureBase imports the debootstrap tree as baseImage unless it exists.
func ensureBase(ctx context.Context, logger *slog.Logger) error {
	if _, err := output(ctx, "docker", "image", "inspect", "-f", "{{.Id}}", baseImage); err == nil {
		return nil
	}
	rootfs, err := os.MkdirTemp("", "kafkaimage-rootfs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(rootfs)
	args := []string{"--variant=minbase", "--include=openjdk-17-jre-headless", "bookworm", rootfs}
	if m := os.Getenv("CHAOS_DEBIAN_MIRROR"); m != "" {
		args = append(args, m)
	}
	logger.Info("debootstrap of the base image (about a minute)", slog.String("into", rootfs))
	if out, err := exec.CommandContext(ctx, "debootstrap", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("debootstrap: %w\n%s", err, tailLines(out, 20))
	}
	// Debian's tree keeps apt's package lists and caches: the image does not need them.
	for _, d := range []string{"var/cache/apt/archives", "var/lib/apt/lists"} {
		_ = os.RemoveAll(filepath.Join(rootfs, d))
	}
	tar := exec.CommandContext(ctx, "tar", "-C", rootfs, "-c", ".")
	imp := exec.CommandContext(ctx, "docker", "import", "-", baseImage)
	pipe, err := tar.StdoutPipe()
	if err != nil {
		return err
	}
	imp.Stdin = pipe
	var impOut bytes.Buffer
	imp.Stdout, imp.Stderr = &impOut, &impOut
	if err := tar.Start(); err != nil {
		return err
	}
	if err := imp.Run(); err != nil {
		_ = tar.Wait()
		return fmt.Errorf("docker import: %w\n%s", err, impOut.String())
	}
	if err := tar.Wait(); err != nil {
		return fmt.Errorf("tar of the base tree: %w", err)
	}
	logger.Info("base image imported", slog.String("tag", baseImage))
	return nil
}

// contentHash hashes the embedded files and the jar cache's stamp (the hash of the pom the jars
// were fetched with) or, for a KAFKA_LIBS folder, the jar names.
func contentHash(libs string) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(files, "files", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(libs)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", e.Name(), info.Size())
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func output(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	return strings.TrimSpace(string(out)), err
}

func tailLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
