package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CABundle is where Debian keeps the CA certificates; a scratch image gets a copy at the same path,
// where Go's crypto/x509 looks for it.
const CABundle = "/etc/ssl/certs/ca-certificates.crt"

// scratchDockerfile is an image of one static binary and the CA certificates: no base image, so
// nothing is pulled.
const scratchDockerfile = `FROM scratch
COPY ca-certificates.crt ` + CABundle + `
COPY app /app
ENTRYPOINT ["/app"]
`

// BuildScratchImage builds image tag FROM scratch with binary (statically linked: CGO_ENABLED=0)
// as its entrypoint /app and this machine's CA certificates, labelled as a cluster of run is
// (Labels), so that make chaos removes it. It uses the docker CLI without BuildKit (the CLI may lack buildx).
func BuildScratchImage(ctx context.Context, tag, binary, run string) error {
	dir, err := os.MkdirTemp("", "scratchimage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for src, dst := range map[string]string{binary: "app", CABundle: "ca-certificates.crt"} {
		b, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("scratch image %s: %w", tag, err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(scratchDockerfile), 0o644); err != nil {
		return err
	}
	args := []string{"build", "-q", "-t", tag}
	for k, v := range Labels(run) {
		args = append(args, "--label", k+"="+v)
	}
	cmd := exec.CommandContext(ctx, "docker", append(args, dir)...)
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("docker build of %s: %w\n%s", tag, err, strings.TrimSpace(string(out)))
	}
	return nil
}
